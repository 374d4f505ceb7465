import Foundation

/// Runs a group of real threads (not a task pool: each writer blocks in
/// `fdatasync` or on a lock, like an app's writer threads) that all start
/// their timed work at the same moment.
///
/// Each thread runs `setup` (untimed), waits at a start line, runs `work`
/// (timed, from the moment the line opens to the moment the last thread
/// finishes), then `teardown` (untimed). `setup`'s state never leaves its
/// thread, so it may be a non-`Sendable` handle such as a SQLite connection.
enum ThreadGang {
    /// Runs `threads` threads as described above and returns the time from
    /// the start until the last `work` returned. Rethrows the first error of any thread.
    static func run<State>(
        threads: Int,
        setup: @escaping @Sendable (_ thread: Int) throws -> State,
        work: @escaping @Sendable (_ thread: Int, _ state: State) throws -> Void,
        teardown: @escaping @Sendable (_ thread: Int, _ state: State) -> Void
    ) throws -> Duration {
        let line = StartLine(threads: threads)
        for index in 0..<threads {
            let thread = Thread {
                var state: State?
                do {
                    state = try setup(index)
                } catch {
                    line.record(error)
                }
                line.arrive()
                if let state {
                    do {
                        try work(index, state)
                    } catch {
                        line.record(error)
                    }
                }
                line.finish()
                if let state { teardown(index, state) }
                line.exit()
            }
            thread.start()
        }
        line.waitForAll(.arrived)
        let clock = ContinuousClock()
        let start = clock.now
        line.open()
        line.waitForAll(.finished)
        let elapsed = clock.now - start
        line.waitForAll(.exited)
        if let first = line.firstError { throw first }
        return elapsed
    }
}

/// The rendezvous of a ``ThreadGang``: counts threads through three stages
/// and holds them at the start until the coordinator opens it.
final class StartLine: @unchecked Sendable {
    /// The stages a thread reports.
    enum Stage { case arrived, finished, exited }

    private let condition = NSCondition()
    private let threads: Int
    private var arrived = 0
    private var finished = 0
    private var exited = 0
    private var isOpen = false
    private var errors: [any Error] = []

    /// A start line for `threads` threads.
    init(threads: Int) { self.threads = threads }

    /// Reports that this thread is set up, then waits until the line opens.
    func arrive() {
        condition.lock()
        arrived += 1
        condition.broadcast()
        while !isOpen { condition.wait() }
        condition.unlock()
    }

    /// Reports that this thread's timed work is done.
    func finish() { bump { $0.finished += 1 } }

    /// Reports that this thread is about to end.
    func exit() { bump { $0.exited += 1 } }

    /// Keeps an error of a thread (the coordinator rethrows the first).
    func record(_ error: any Error) { bump { $0.errors.append(error) } }

    /// The first error a thread recorded.
    var firstError: (any Error)? {
        condition.lock()
        defer { condition.unlock() }
        return errors.first
    }

    /// Lets every waiting thread start.
    func open() { bump { $0.isOpen = true } }

    /// Blocks until every thread has reached `stage`.
    func waitForAll(_ stage: Stage) {
        condition.lock()
        defer { condition.unlock() }
        while true {
            let count =
                switch stage {
                case .arrived: arrived
                case .finished: finished
                case .exited: exited
                }
            if count >= threads { return }
            condition.wait()
        }
    }

    private func bump(_ change: (StartLine) -> Void) {
        condition.lock()
        change(self)
        condition.broadcast()
        condition.unlock()
    }
}
