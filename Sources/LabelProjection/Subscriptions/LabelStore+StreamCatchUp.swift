import EventLog

/// Catching up an async stream that dropped its buffer (see ``StreamBuffer``).
extension LabelStore {
    /// Runs one catch-up batch for `buffer`: folds the log after `consumed`
    /// (starting from `fold`, or from the state at `consumed`, itself folded
    /// from a snapshot where there is one), and hands the notifications to the
    /// buffer. When the fold is within one batch of the projection, it finishes
    /// under the store's lock and switches the stream back to live, so no
    /// record is missed or repeated across the switch. Each call produces at
    /// most the buffer's limit of notifications. If the log cannot be read, the
    /// stream ends after what it holds.
    func catchUpStream(_ buffer: StreamBuffer, dependency: Dependency, after consumed: UInt64, fold resumed: NotificationFold?) {
        let batch = max(1, min(buffer.limit, 2048) / 2)
        do throws(StoreError) {
            var fold: NotificationFold
            if let resumed {
                fold = resumed
            } else {
                fold = NotificationFold(dependency: dependency, list: try self.fold(through: consumed))
            }
            var out: [ChangeNotification] = []
            for record in try readRecords(from: fold.list.lastSeq + 1, maxCount: batch) {
                if let notification = try fold.step(record) { out.append(notification) }
            }
            let live = try state.withLock { (s) throws(StoreError) -> Bool in
                let target = s.list.lastSeq
                guard target <= fold.list.lastSeq + UInt64(batch) else { return false }
                while fold.list.lastSeq < target {
                    let records = try readRecords(from: fold.list.lastSeq + 1, maxCount: Int(target - fold.list.lastSeq))
                    try fold.step(through: records, toward: target, into: &out)
                }
                buffer.deliverCaughtUp(out, fold: nil, liveAfter: max(target, fold.list.lastSeq))
                if s.closed { buffer.finish() }
                return true
            }
            if !live { buffer.deliverCaughtUp(out, fold: fold, liveAfter: nil) }
        } catch {
            buffer.fail()
        }
    }

    /// Runs one catch-up batch for a stream whose store was released:
    /// folds the log after `consumed` (from `fold`, or from seq 1) through
    /// the last seq the store applied, which no longer changes, and hands the
    /// notifications to the buffer; when it reaches that seq the stream ends
    /// after them (the store finished it when it went away). Like
    /// ``catchUpStream(_:dependency:after:fold:)``, a batch produces at most
    /// the buffer's limit of notifications, and a log that cannot be read
    /// ends the stream after what it holds.
    static func catchUpDetachedStream(
        _ buffer: StreamBuffer, log: StoreLog, dependency: Dependency,
        after consumed: UInt64, fold resumed: NotificationFold?
    ) {
        let batch = max(1, min(buffer.limit, 2048) / 2)
        let target = log.appliedSeq
        do throws(StoreError) {
            var fold: NotificationFold
            if let resumed {
                fold = resumed
            } else {
                var list = log.origin
                try log.fold(&list, through: consumed, via: nil)
                fold = NotificationFold(dependency: dependency, list: list)
            }
            var out: [ChangeNotification] = []
            if fold.list.lastSeq < target {
                let records = try log.read(
                    from: fold.list.lastSeq + 1, maxCount: Int(min(UInt64(batch), target - fold.list.lastSeq)), via: nil)
                try fold.step(through: records, toward: target, into: &out)
            }
            if fold.list.lastSeq >= target {
                buffer.deliverCaughtUp(out, fold: nil, liveAfter: target)
            } else {
                buffer.deliverCaughtUp(out, fold: fold, liveAfter: nil)
            }
        } catch {
            buffer.fail()
        }
    }

    /// Up to `maxCount` records from `seq` on. After ``close()`` a file log is
    /// read through a `LogReader` (the writer is closed), so streams and
    /// time travel keep working on a closed store.
    func readRecords(from seq: UInt64, maxCount: Int) throws(StoreError) -> [EventRecord] {
        try log.read(from: seq, maxCount: maxCount, via: storage)
    }

    /// Calls `body` for each stored record from `seq` through `last` (`nil`:
    /// the end), read as ``readRecords(from:maxCount:)`` reads; `body` returns `false` to stop.
    func forEachStoredRecord(from seq: UInt64, through last: UInt64?, _ body: (EventRecord) throws(StoreError) -> Bool) throws(StoreError) {
        try log.forEachRecord(from: seq, through: last, via: storage, body)
    }

    /// The number of notifications held by stream buffers now (for tests and diagnostics).
    var bufferedStreamNotifications: Int {
        state.withLock { $0.hub.subscribers.compactMap(\.streamBuffer) }.reduce(0) { $0 + $1.pendingCount }
    }

    /// How many times stream buffers were dropped (for tests and diagnostics).
    var streamOverflows: Int {
        state.withLock { $0.hub.subscribers.compactMap(\.streamBuffer) }.reduce(0) { $0 + $1.overflowCount }
    }
}
