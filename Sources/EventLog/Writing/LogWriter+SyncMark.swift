/// Keeping the log's sync mark (``SyncMark``, `LOG.synced`) in step with
/// what the writer's syncs made durable.
///
/// The mark is written after a sync returned, at most every
/// ``SyncMark/interval`` records (each write is a small file renamed over
/// the last, not synced: its loss costs readers a forward check, nothing
/// else), and removed before records it names are cut.
extension LogWriter {
    /// Notes that a sync covering `position` returned (call holding the state
    /// lock, on the file `position` is in): writes the mark there when it is
    /// ``SyncMark/interval`` records or more past the last one.
    func markDurable(_ s: inout State, through position: LogPosition?) {
        guard let position, needsSyncMark(s, at: position) else { return }
        SyncMark.write(position, forLogAt: path, logID: s.header.logID)
        s.markedSeq = position.seq
    }

    /// Whether a sync covering `position` should be followed by a new mark.
    func needsSyncMark(_ s: State, at position: LogPosition?) -> Bool {
        guard let position, s.format.chainsRecords else { return false }
        return position.seq >= s.markedSeq + SyncMark.interval
    }

    /// ``markDurable(_:through:)`` from outside the lock, once a sync that
    /// began in `generation` covered `position` (nothing if records were cut
    /// or the file replaced since).
    func markDurable(through position: LogPosition, generation: UInt64) {
        state.withLock { s in
            guard s.generation == generation, s.file != nil else { return }
            markDurable(&s, through: position)
        }
    }

    /// Removes the mark if it names a record after `seq` (call holding the
    /// state lock, before those records are cut).
    func dropSyncMark(_ s: inout State, after seq: UInt64) {
        guard s.markedSeq > seq else { return }
        SyncMark.remove(forLogAt: path)
        s.markedSeq = seq
    }
}
