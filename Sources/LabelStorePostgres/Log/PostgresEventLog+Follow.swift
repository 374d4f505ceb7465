#if Postgres
import EventLog
import Foundation

/// The listening connection of a ``PostgresEventLog``: `LISTEN` on the list's
/// channel, never inside a transaction (a listener inside one would hold the
/// server's notification queue). On a hot standby, which cannot `LISTEN`
/// (nor be notified: notifications are not replicated), it only polls, and
/// listens once the server is promoted.
struct PostgresListener {
    var connection: PostgresConnection?
    /// Whether `connection` has sent its `LISTEN`.
    var listening = false

    mutating func close() {
        connection?.close()
        connection = nil
        listening = false
    }
}

/// Following: notifications as wake-up hints, a timed poll of the list's end always.
extension PostgresEventLog {
    /// Waits until the list may hold records after `seq`, or `timeout` passes.
    ///
    /// Reads the list's end; if it is past `seq`, returns `true` at once.
    /// Otherwise waits on the list's notification channel (with
    /// ``Options-swift.struct/notify``) or sleeps, at most
    /// ``Options-swift.struct/pollInterval`` at a time, reading the end
    /// after each wait. A new listening connection (the first, or after a
    /// loss) reads the end after its `LISTEN`, so an append whose
    /// notification was lost while it was away is still seen.
    ///
    /// A server out of reach (stopped, restarting, a dropped connection) is
    /// waited out: the call keeps reconnecting with a growing pause and returns
    /// `false` at `timeout` as if nothing was appended, telling
    /// ``Options-swift.struct/onConnectionEvent``; it throws only once the
    /// server has been out of reach for ``Options-swift.struct/reconnectTimeout``
    /// (counted across calls). A follower that calls it again continues where
    /// it was: no seq is skipped or repeated.
    ///
    /// - Throws: `connectionFailed` when the server has been out of reach for
    ///   the reconnect window (the next call tries again); `closed`;
    ///   `listNotFound` if the list was dropped; `listReplaced` if it was
    ///   dropped and created again.
    public func waitForAppends(after seq: UInt64, timeout: Duration) throws(EventLogError) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var pause = Duration.milliseconds(50)
        return try listener.withLock { (listener) throws(EventLogError) -> Bool in
            while true {
                if closed.load(ordering: .acquiring) {
                    throw EventLogError(.closed, "\(location): the log was closed", path: location.description)
                }
                let last: UInt64
                do throws(EventLogError) {
                    last = try headWhileListening(&listener)
                } catch {
                    guard error.code == .connectionFailed else { throw error }
                    listener.close()
                    let since = noteUnreachable(error)
                    if clock.now - since >= options.reconnectTimeout {
                        var error = error
                        error.message += " (out of reach for \(Int((clock.now - since).timeInterval.rounded())) s)"
                        throw error
                    }
                    let now = clock.now
                    if now >= deadline { return false }
                    Thread.sleep(forTimeInterval: min(pause, now.duration(to: deadline)).timeInterval)
                    pause = min(pause * 2, .seconds(1))
                    continue
                }
                noteReachable()
                noteLastSeq(last)
                if last > seq { return true }
                let now = clock.now
                if now >= deadline { return false }
                let step = min(options.pollInterval, now.duration(to: deadline))
                let milliseconds = Int32(clamping: step.wholeMilliseconds)
                if options.notify, listener.listening, let connection = listener.connection {
                    // Notifications already read with the end's result count too.
                    do throws(PostgresFailure) {
                        if try !connection.drainNotifications().isEmpty { continue }
                        if SocketWait.readable(connection.socket, milliseconds: max(1, milliseconds)) {
                            _ = try connection.drainNotifications()
                        }
                    } catch {
                        // The connection is gone: the next turn reconnects (or waits the server out).
                        listener.close()
                    }
                } else {
                    Thread.sleep(forTimeInterval: step.timeInterval)
                }
            }
        }
    }

    /// The list's end, read on the listening connection (connecting and
    /// listening first if there is none).
    private func headWhileListening(_ listener: inout PostgresListener) throws(EventLogError) -> UInt64 {
        if listener.connection?.isUsable != true {
            listener.close()
            listener.connection = try Self.connect(location, options)
        }
        guard let connection = listener.connection else {
            throw EventLogError(.connectionFailed, "\(location): no listening connection", path: location.description)
        }
        // The head is read after the LISTEN: an append notified before it is still seen.
        if options.notify && !listener.listening && !connection.isReadOnlyServer {
            do throws(PostgresFailure) {
                try connection.execute("LISTEN \(PostgresStatements.quoted(channel))")
                listener.listening = true
            } catch {
                // A standby (SQLSTATE 25006, "cannot execute LISTEN during recovery") is polled.
                if !error.isReadOnlyTransaction {
                    listener.close()
                    throw Self.mapped(error, location: location, doing: "listen for appends")
                }
            }
        }
        do throws(PostgresStepFailure) {
            return try readHead(connection)
        } catch {
            throw Self.mapped(error, location: location, doing: "follow the list")
        }
    }
}
#endif
