import EventLog
import Foundation

/// `import`'s input read and decoded on a second thread, at most `depth`
/// chunks ahead of the thread that checks and writes them, so the two halves
/// of the work (about even) run on two cores.
///
/// Thread safety: everything below `condition` is guarded by it. The
/// ``ImportInput`` belongs to the reading thread while it runs; ``stop()``
/// waits for that thread to end (a wait for input ends within 100 ms), after
/// which the caller may use the input again (its line numbers, for an error
/// message). Ctrl-C reaches whichever thread: the reading thread checks for
/// it while it waits, and passes it on as its error.
final class ImportPipeline: @unchecked Sendable {
    /// One chunk, with how far the input had been read after it (for progress).
    struct Chunk {
        let entries: [LogEntry]
        let consumed: Int64
        let lines: Int
    }

    private let input: ImportInput
    private let chunkSize: Int
    private let depth: Int
    private let condition = NSCondition()
    private var ready: [Chunk] = []
    private var ended = false
    private var failure: (any Error)?
    private var cancelled = false
    private var running = false

    /// A pipeline reading `input` in chunks of `chunkSize` entries, at most `depth` chunks ahead.
    init(_ input: ImportInput, chunkSize: Int, depth: Int = 2) {
        self.input = input
        self.chunkSize = chunkSize
        self.depth = depth
    }

    /// Starts the reading thread.
    func start() {
        condition.withLock { running = true }
        input.stopRequested = { [self] in condition.withLock { cancelled } }
        let thread = Thread { [self] in read() }
        thread.name = "labelreplay import input"
        thread.start()
    }

    /// The reading thread: chunks until the end, an error, or ``stop()``.
    private func read() {
        defer {
            condition.withLock {
                running = false
                ended = true
                condition.broadcast()
            }
        }
        while true {
            let chunk: [LogEntry]?
            do {
                chunk = try input.nextChunk(maxCount: chunkSize)
            } catch is Platform.Stopped {
                return
            } catch {
                condition.withLock { failure = error }
                return
            }
            guard let chunk else { return }
            let item = Chunk(entries: chunk, consumed: input.consumed, lines: input.linesRead)
            let go = condition.withLock {
                while ready.count >= depth && !cancelled { condition.wait() }
                guard !cancelled else { return false }
                ready.append(item)
                condition.broadcast()
                return true
            }
            guard go else { return }
        }
    }

    /// The next chunk, waiting for it; `nil` at the end of the input. Rethrows what reading threw.
    func next() throws -> Chunk? {
        try condition.withLock {
            while ready.isEmpty && !ended { condition.wait() }
            if !ready.isEmpty {
                condition.broadcast()
                return ready.removeFirst()
            }
            if let failure { throw failure }
            return nil
        }
    }

    /// Stops the reading thread and waits until it has ended.
    func stop() {
        condition.withLock {
            cancelled = true
            condition.broadcast()
            while running { condition.wait() }
        }
    }
}
