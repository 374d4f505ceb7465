import EventLog

/// The bounded buffer behind one ``LabelStore/changes(for:)`` stream.
///
/// Live notifications are appended as the store delivers them, up to
/// `limit`. One more and the buffer is *dropped*: the stream switches to
/// catching up, i.e. it forgets every buffered notification and later
/// recomputes them from the log, starting after the last one its consumer
/// received (``StreamHandle/next()`` runs ``LabelStore/catchUpStream(_:dependency:after:fold:)``
/// when ``step()`` says so, in batches of at most half the limit). Deliveries that arrive while it is catching up are ignored, and
/// once it is live again any delivery at or before the seq it caught up to is
/// ignored as a duplicate. So a slow consumer costs at most `limit`
/// notifications of memory, receives every notification exactly once in seq
/// order, and never slows writers.
///
/// Thread safety: all state is behind a lock (`Locked`); the consumer side
/// (``step()``, ``wait()``) must be used by one task at a time, as an
/// `AsyncStream` iterator is.
final class StreamBuffer: Sendable {
    /// What the consumer does next.
    enum Step: Sendable {
        case value(ChangeNotification)
        case catchUp(after: UInt64, fold: NotificationFold?)
        case end
        case wait
    }

    struct State: Sendable {
        var items: [ChangeNotification] = []
        var head = 0
        var waiter: CheckedContinuation<ChangeNotification?, Never>?
        /// The seq of the last notification the consumer received (or the start seq minus one).
        var consumedSeq: UInt64 = 0
        /// Live deliveries at or before this seq are duplicates of caught-up ones.
        var liveAfter: UInt64 = 0
        /// The buffer was dropped: catch up from the log after `consumedSeq`.
        var catchingUp = false
        /// The catch-up fold, kept between batches.
        var fold: NotificationFold?
        var finished = false
        var cancelled = false
        /// How many times the buffer was dropped (for tests and diagnostics).
        var overflows = 0

        var pending: Int { items.count - head }
    }

    /// The most notifications held at once.
    let limit: Int
    let state = Locked(State())

    init(limit: Int) { self.limit = max(1, limit) }

    /// Starts live delivery after `seq` (registration of a live stream).
    func startLive(after seq: UInt64) {
        state.withLock { s in
            s.consumedSeq = seq
            s.liveAfter = seq
        }
    }

    /// Starts by catching up from the log after `seq` (a stream with history).
    func startCatchingUp(after seq: UInt64) {
        state.withLock { s in
            s.consumedSeq = seq
            s.catchingUp = true
        }
    }

    /// The last seq after which this stream may still read the log (the
    /// state there and the records after it): where its catch-up fold is,
    /// or, live or not, the last notification its consumer took (a buffer
    /// that overflows catches up from there). `nil` once it ended.
    var resumeSeq: UInt64? {
        state.withLock { s in s.finished || s.cancelled ? nil : (s.fold?.list.lastSeq ?? s.consumedSeq) }
    }

    /// The number of notifications held now.
    var pendingCount: Int { state.withLock { $0.pending } }

    /// How many times the buffer was dropped.
    var overflowCount: Int { state.withLock { $0.overflows } }

    /// Offers a live notification (from the delivery queue, with no store lock held).
    func offer(_ notification: ChangeNotification) {
        let waiter = state.withLock { s -> CheckedContinuation<ChangeNotification?, Never>? in
            guard !s.cancelled, !s.finished, !s.catchingUp, notification.seq > s.liveAfter else { return nil }
            if let waiter = s.waiter {
                s.waiter = nil
                s.consumedSeq = notification.seq
                return waiter
            }
            if s.pending >= limit {
                s.items = []
                s.head = 0
                s.catchingUp = true
                s.overflows += 1
                return nil
            }
            s.items.append(notification)
            return nil
        }
        waiter?.resume(returning: notification)
    }

    /// Ends the stream once the consumer has everything (the store closed or went away).
    func finish() { end { $0.finished = true } }

    /// Ends the stream after what is held, without catching up (the log could not be read).
    func fail() {
        end { s in
            s.finished = true
            s.catchingUp = false
            s.fold = nil
        }
    }

    /// Ends the stream now, dropping what is held (the consumer cancelled).
    func cancel() {
        end { s in
            s.cancelled = true
            s.items = []
            s.head = 0
            s.fold = nil
        }
    }

    private func end(_ body: (inout State) -> Void) {
        let waiter = state.withLock { s -> CheckedContinuation<ChangeNotification?, Never>? in
            body(&s)
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// What the consumer should do next; pops a held notification if there is one.
    func step() -> Step {
        state.withLock { s in
            if s.cancelled { return .end }
            if s.head < s.items.count {
                let item = s.items[s.head]
                s.head += 1
                if s.head == s.items.count {
                    s.items.removeAll(keepingCapacity: s.items.count <= 1024)
                    s.head = 0
                }
                s.consumedSeq = item.seq
                return .value(item)
            }
            if s.catchingUp { return .catchUp(after: s.consumedSeq, fold: s.fold) }
            return s.finished ? .end : .wait
        }
    }

    /// Waits until a notification is offered (returned) or something else happens (`nil`: step again).
    func wait() async -> ChangeNotification? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { s -> Bool in
                if s.cancelled || s.finished || s.catchingUp || s.head < s.items.count { return true }
                s.waiter = continuation
                return false
            }
            if ready { continuation.resume(returning: nil) }
        }
    }

    /// Hands over the notifications of one catch-up batch. With `liveAfter`,
    /// the stream is live again from that seq on; otherwise `fold` is kept for the next batch.
    func deliverCaughtUp(_ notifications: [ChangeNotification], fold: NotificationFold?, liveAfter: UInt64?) {
        state.withLock { s in
            guard !s.cancelled else { return }
            s.items.append(contentsOf: notifications)
            if let liveAfter {
                s.catchingUp = false
                s.fold = nil
                s.liveAfter = liveAfter
            } else {
                s.fold = fold
            }
        }
    }
}
