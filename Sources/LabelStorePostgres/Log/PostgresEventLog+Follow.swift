#if Postgres
import EventLog
import Foundation

/// The listening connection of a ``PostgresEventLog``: `LISTEN` on the list's
/// channel, never inside a transaction (a listener inside one would hold the
/// server's notification queue).
struct PostgresListener {
    var connection: PostgresConnection?

    mutating func close() {
        connection?.close()
        connection = nil
    }
}

/// Following: notifications as wake-up hints, a timed poll of the head row always.
extension PostgresEventLog {
    /// Waits until the list may hold records after `seq`, or `timeout` passes.
    ///
    /// Reads the head row; if it is past `seq`, returns `true` at once.
    /// Otherwise waits on the list's notification channel (with
    /// ``Options-swift.struct/notify``) or sleeps, at most
    /// ``Options-swift.struct/pollInterval`` at a time, reading the head row
    /// after each wait. A new listening connection (the first, or after a
    /// loss) reads the head row after its `LISTEN`, so an append whose
    /// notification was lost while it was away is still seen.
    ///
    /// - Throws: `connectionFailed` when the server cannot be reached (the
    ///   next call tries again); `closed`; `listNotFound` if the list was dropped.
    public func waitForAppends(after seq: UInt64, timeout: Duration) throws(EventLogError) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        return try listener.withLock { (listener) throws(EventLogError) -> Bool in
            while true {
                if closed.load(ordering: .acquiring) {
                    throw EventLogError(.closed, "\(location): the log was closed", path: location.description)
                }
                if listener.connection?.isUsable != true {
                    listener.close()
                    let connection = try Self.connect(location, options)
                    if options.notify {
                        do throws(PostgresFailure) {
                            try connection.execute("LISTEN \(PostgresStatements.quoted(channel))")
                        } catch {
                            throw Self.mapped(error, location: location, doing: "listen for appends")
                        }
                    }
                    listener.connection = connection
                }
                guard let connection = listener.connection else { continue }
                let last: UInt64
                do throws(PostgresStepFailure) {
                    last = try readHead(connection)
                } catch {
                    if case .server(let failure) = error, failure.isServerGone { listener.close() }
                    throw Self.mapped(error, location: location, doing: "follow the list")
                }
                noteLastSeq(last)
                if last > seq { return true }
                let now = clock.now
                if now >= deadline { return false }
                let step = min(options.pollInterval, now.duration(to: deadline))
                let milliseconds = Int32(clamping: step.wholeMilliseconds)
                if options.notify {
                    // Notifications already read with the head row's result count too.
                    do throws(PostgresFailure) {
                        if try !connection.drainNotifications().isEmpty { continue }
                        if SocketWait.readable(connection.socket, milliseconds: max(1, milliseconds)) {
                            _ = try connection.drainNotifications()
                        }
                    } catch {
                        listener.close()
                        throw Self.mapped(error, location: location, doing: "follow the list")
                    }
                } else {
                    Thread.sleep(forTimeInterval: step.timeInterval)
                }
            }
        }
    }
}
#endif
