import Foundation

/// What ``FaultyFileSystem`` knows about one file: the bytes a power loss
/// would certainly keep (`durable`), the bytes reads see (`visible`), and the
/// changes made since the last successful sync (`pending`), oldest first.
///
/// The sync model is PostgreSQL's "fsyncgate": a sync covers the changes
/// made before it began. If it succeeds they become durable; if it fails they
/// are dropped — they never become durable, a later sync succeeds without
/// writing them, and (when the file system is told to evict) the kernel's
/// dirty pages are gone too, so reads see the old durable bytes again
/// (zeros past the durable end).
struct FileHistory: Sendable {
    enum Change: Sendable {
        case write(offset: Int, bytes: [UInt8])
        case truncate(length: Int)
    }

    struct Pending: Sendable {
        /// The file system's global counter when the change was made.
        var serial: Int
        var change: Change
    }

    /// What a sync covers: the changes made before it began, and the size then.
    struct Coverage: Sendable {
        /// Changes with a serial below this one.
        var upTo: Int
        var size: Int
    }

    /// What the last change to the file was (so a sync can be attributed to its call site).
    enum LastChange: Sendable {
        case recordWrite, zeroWrite, truncate
    }

    var durable: [UInt8]
    var visible: [UInt8]
    var pending: [Pending] = []
    var lastChange: LastChange?
    /// The newest coverage a sync has settled (succeeded or failed); older ones change nothing.
    private var settledUpTo = Int.min

    init(contents: [UInt8]) {
        durable = contents
        visible = contents
    }

    mutating func record(_ change: Change, serial: Int) {
        pending.append(Pending(serial: serial, change: change))
        Self.apply(change, to: &visible)
        switch change {
        case .write(_, let bytes): lastChange = Self.isAllZero(bytes) ? .zeroWrite : .recordWrite
        case .truncate: lastChange = .truncate
        }
    }

    func coverage(nextSerial: Int) -> Coverage { Coverage(upTo: nextSerial, size: visible.count) }

    /// The sync that began with `coverage` succeeded: what it covers is durable.
    mutating func syncSucceeded(_ coverage: Coverage) {
        // An equal coverage follows a failed sync with no change since: it still makes the size durable.
        guard coverage.upTo >= settledUpTo else { return }
        settledUpTo = coverage.upTo
        let covered = pending.prefix { $0.serial < coverage.upTo }
        for p in covered { Self.apply(p.change, to: &durable) }
        // Writes an earlier failed sync dropped still count in the size (the inode
        // is dirty), but their bytes were never written: zeros.
        Self.resize(&durable, to: coverage.size)
        pending.removeFirst(covered.count)
    }

    /// The sync that began with `coverage` failed: what it covers is dropped.
    /// With `evict`, reads see the old durable bytes again; returns the ranges
    /// whose visible bytes changed, to be written to the real file.
    mutating func syncFailed(_ coverage: Coverage, evict: Bool) -> [(offset: Int, bytes: [UInt8])] {
        guard coverage.upTo > settledUpTo else { return [] }
        settledUpTo = coverage.upTo
        let dropped = pending.prefix { $0.serial < coverage.upTo }
        pending.removeFirst(dropped.count)
        guard evict else { return [] }
        var ranges: [Range<Int>] = []
        for p in dropped {
            guard case .write(let offset, let bytes) = p.change else { continue }
            let range = offset..<max(offset, min(offset + bytes.count, visible.count))
            guard !range.isEmpty else { continue }
            ranges.append(range)
            for i in range { visible[i] = i < durable.count ? durable[i] : 0 }
        }
        // Later writes the failed sync did not cover are still in the cache.
        for p in pending { if case .write = p.change { Self.apply(p.change, to: &visible, growing: false) } }
        return ranges.map { ($0.lowerBound, Array(visible[$0])) }
    }

    // MARK: Byte images

    static func apply(_ change: Change, to image: inout [UInt8], growing: Bool = true) {
        switch change {
        case .write(let offset, let bytes):
            write(bytes, prefix: bytes.count, at: offset, to: &image, growing: growing)
        case .truncate(let length):
            resize(&image, to: length)
        }
    }

    static func write(_ bytes: [UInt8], prefix count: Int, at offset: Int, to image: inout [UInt8], growing: Bool = true) {
        var count = count
        if growing {
            if image.count < offset + count { resize(&image, to: offset + count) }
        } else {
            count = max(0, min(count, image.count - offset))
        }
        guard count > 0 else { return }
        image.withUnsafeMutableBytes { dst in
            bytes.withUnsafeBytes { src in
                (dst.baseAddress! + offset).copyMemory(from: src.baseAddress!, byteCount: count)
            }
        }
    }

    static func resize(_ image: inout [UInt8], to length: Int) {
        if image.count > length {
            image.removeLast(image.count - length)
        } else if image.count < length {
            image.append(contentsOf: [UInt8](repeating: 0, count: length - image.count))
        }
    }

    static func isAllZero(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { isAllZero($0) }
    }

    static func isAllZero(_ raw: UnsafeRawBufferPointer) -> Bool {
        guard !raw.isEmpty else { return true }
        return raw.first == 0 && memcmp(raw.baseAddress!, raw.baseAddress! + 1, raw.count - 1) == 0
    }
}
