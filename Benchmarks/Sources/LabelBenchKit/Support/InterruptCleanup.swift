import Foundation

/// Removes the scratch directory when the run is interrupted (Ctrl-C, `kill`),
/// so an aborted run does not leave gigabytes of fixtures in the temporary directory.
enum InterruptCleanup {
    /// The signals that trigger the cleanup.
    static let signals: [Int32] = [SIGINT, SIGTERM]

    /// Blocks SIGINT and SIGTERM in the calling thread (and so in every thread
    /// it starts later) and starts a thread that waits for them with
    /// `sigwait`, removes `directory` and exits with 128 + the signal number.
    /// Call it before any other thread is started.
    static func install(removing directory: String) {
        var set = sigset_t()
        sigemptyset(&set)
        for number in signals {
            signal(number, SIG_DFL)  // a background job inherits SIGINT ignored; an ignored signal is never delivered
            sigaddset(&set, number)
        }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        let watcher = Thread {
            var set = sigset_t()
            sigemptyset(&set)
            for number in signals { sigaddset(&set, number) }
            var number: Int32 = 0
            guard sigwait(&set, &number) == 0 else { return }
            FileHandle.standardError.write(Data("\nlabelbench: interrupted; removing \(directory)\n".utf8))
            try? FileManager.default.removeItem(atPath: directory)
            exit(128 + number)
        }
        watcher.start()
    }
}
