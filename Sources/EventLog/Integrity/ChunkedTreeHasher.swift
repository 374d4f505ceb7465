import Dispatch
import Synchronization

/// Hashes a history's records into its tree on every core: the records are
/// gathered in chunks of ``chunkSize`` (a power of two) aligned to the tree,
/// so that each whole chunk is a perfect subtree whose root a worker
/// computes (its leaves and nodes three SHA-256 streams at a time,
/// ``HistoryHash/leaves(_:offsets:count:into:hardware:)``) while the caller reads the
/// next; the roots are appended to the tree in order
/// (``HistoryTreeBuilder/append(subtree:size:)``). A chunk that is not whole
/// (the first after a base, the last) or that holds a seq whose head is
/// wanted is hashed leaf by leaf in order. The head is the one appending
/// each leaf gives (tested against it).
///
/// Not shared between threads: one caller appends; the workers see only
/// their chunk's copy of the payloads.
package final class ChunkedTreeHasher {
    /// Records per chunk.
    package static let chunkSize = 4096

    /// The tree so far (the whole chunks submitted are in it once ``finish()`` returns).
    package private(set) var builder: HistoryTreeBuilder
    /// The root after each wanted seq reached.
    package private(set) var found: [UInt64: HistoryHash] = [:]
    private let wanted: Set<UInt64>
    private let chunkSize: Int
    /// The chunk being gathered (handed to a worker whole, then a new one is made).
    @exclusivity(unchecked) private var chunk: ChunkBuffer
    /// The tree's count before the chunk being gathered.
    private var chunkStart: UInt64
    /// Roots of whole chunks submitted, by their start, until they are appended in order.
    private let roots = ChunkRoots()
    private var pending: [UInt64] = []
    private let inFlight: DispatchSemaphore
    private let group = DispatchGroup()

    /// A hasher continuing `start` (empty, or a based log's base frontier),
    /// noting the root after each seq in `wanted`.
    package init(start: HistoryTreeBuilder, wanted: Set<UInt64>, chunkSize: Int = ChunkedTreeHasher.chunkSize) {
        precondition(chunkSize > 0 && chunkSize & (chunkSize - 1) == 0, "a chunk is a power of two records")
        self.builder = start
        self.wanted = wanted
        self.chunkSize = chunkSize
        self.chunkStart = start.count
        self.inFlight = DispatchSemaphore(value: 4)
        if wanted.contains(start.count) { found[start.count] = start.root }
        chunk = ChunkBuffer(records: chunkSize)
    }

    deinit {
        group.wait()
        chunk.deallocate()
        for spare in roots.spare.withLock({ $0 }) { spare.deallocate() }
    }

    /// Appends the next record's payload.
    package func append(payload: UnsafeRawBufferPointer) {
        chunk.append(payload)
        if (chunkStart + UInt64(chunk.count)) % UInt64(chunkSize) == 0 { endChunk() }
    }

    /// Hashes what is gathered and waits for every worker; returns the tree.
    package func finish() -> HistoryTreeBuilder {
        if chunk.count > 0 { endChunk() }
        mergeAll()
        return builder
    }

    /// The chunk gathered ends at a multiple of the chunk size (or the history ends).
    private func endChunk() {
        let count = chunk.count
        let start = chunkStart
        let end = start + UInt64(count)
        let whole = count == chunkSize && start % UInt64(chunkSize) == 0
        if whole && !wanted.contains(where: { $0 > start && $0 <= end }) {
            submit(start: start)
        } else {
            // In order, leaf by leaf: every earlier chunk first.
            mergeAll()
            hashLeafByLeaf()
            chunk.removeAll()
        }
        chunkStart = end
    }

    /// Hands the gathered chunk to a worker (which gives it back to ``spare``
    /// once hashed) and starts gathering into a spare one (or a new one).
    private func submit(start: UInt64) {
        let handed = chunk
        let roots = self.roots
        inFlight.wait()
        // A worker gave its chunk back before it signalled: at most `inFlight` buffers, reused.
        chunk = roots.spare.withLock { $0.popLast() } ?? ChunkBuffer(records: chunkSize)
        chunk.removeAll()
        let inFlight = self.inFlight
        DispatchQueue.global().async(group: group) {
            let root = Self.root(of: handed)
            roots.done.withLock { $0[start] = root }
            roots.spare.withLock { $0.append(handed) }
            inFlight.signal()
        }
        pending.append(start)
        mergeReady()
    }

    /// Appends the roots of the chunks done, in order, as far as the first not done.
    private func mergeReady() {
        while let first = pending.first, let root = roots.done.withLock({ $0.removeValue(forKey: first) }) {
            builder.append(subtree: root, size: UInt64(chunkSize))
            pending.removeFirst()
        }
    }

    /// Waits for every worker and appends their roots.
    private func mergeAll() {
        guard !pending.isEmpty else { return }
        group.wait()
        mergeReady()
    }

    /// The perfect subtree root of the payloads in `chunk`.
    private static func root(of chunk: ChunkBuffer) -> HistoryHash {
        withUnsafeTemporaryAllocation(of: HistoryHash.self, capacity: chunk.count) { hashes in
            let base = hashes.baseAddress!
            HistoryHash.leaves(chunk.bytes, offsets: chunk.offsets, count: chunk.count, into: base)
            return HistoryHash.perfectRoot(base, count: chunk.count)
        }
    }

    /// Appends the gathered leaves one by one, noting the wanted roots.
    private func hashLeafByLeaf() {
        let count = chunk.count
        guard count > 0 else { return }
        withUnsafeTemporaryAllocation(of: HistoryHash.self, capacity: count) { hashes in
            let base = hashes.baseAddress!
            HistoryHash.leaves(chunk.bytes, offsets: chunk.offsets, count: count, into: base)
            for i in 0..<count {
                builder.append(leaf: base[i])
                if wanted.contains(builder.count) { found[builder.count] = builder.root }
            }
        }
    }
}

/// The payloads of one chunk, in memory of its own: the bytes one after the
/// other and where each ends. Handed whole from the reading thread to one
/// worker, which hands it back as a spare; never used by two at once.
private struct ChunkBuffer: @unchecked Sendable {
    private(set) var bytes: UnsafeMutableRawPointer
    private var capacity: Int
    /// `offsets[i]` where payload `i` starts, `offsets[count]` where the last ends.
    let offsets: UnsafeMutablePointer<Int>
    private(set) var count = 0

    init(records: Int) {
        capacity = records * 96
        bytes = .allocate(byteCount: capacity, alignment: 16)
        offsets = .allocate(capacity: records + 1)
        offsets[0] = 0
    }

    mutating func append(_ payload: UnsafeRawBufferPointer) {
        let end = offsets[count]
        if end + payload.count > capacity {
            capacity = max(capacity * 2, end + payload.count)
            let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
            grown.copyMemory(from: bytes, byteCount: end)
            bytes.deallocate()
            bytes = grown
        }
        if let source = payload.baseAddress { (bytes + end).copyMemory(from: source, byteCount: payload.count) }
        count += 1
        offsets[count] = end + payload.count
    }

    mutating func removeAll() { count = 0 }

    func deallocate() {
        bytes.deallocate()
        offsets.deallocate()
    }
}

/// The roots the workers computed, by their chunk's start, until the hasher
/// appends them; and the chunks hashed, for the next ones to reuse.
private final class ChunkRoots: Sendable {
    let done = Mutex<[UInt64: HistoryHash]>([:])
    let spare = Mutex<[ChunkBuffer]>([])
}
