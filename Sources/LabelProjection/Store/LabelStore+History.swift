import EventLog

/// The store's whole history: its log and the archives of the records cut
/// off it (``EventLog/LogHistory``), for reads of seqs before the log's first.
extension LabelStore {
    /// The store's history: the archives its log's base names, back to
    /// seq 1 or to records that were dropped, then its log (the file its
    /// writer holds, or the storage it was opened on). Relative archive
    /// names are resolved in the log file's directory.
    ///
    /// Each call returns a new value for one thread; archives are checked
    /// (`LogHistory.archives(from:)`) before any record of them
    /// is read.
    public func history() -> LogHistory {
        LogHistory(storage: storage, name: ownedWriter?.path ?? "the store's log")
    }

    /// The fold of records `1...seq` for a `seq` before the log's base: from
    /// the oldest archive needed, read through the history.
    func foldAcrossArchives(through seq: UInt64) throws(StoreError) -> LabelList {
        try foldAcrossArchives(from: seq + 1) { record in record.seq <= seq }
    }

    /// Folds the history from the oldest part holding `first` (its origin:
    /// empty, or its base's list) while `keep` accepts each record in seq order.
    func foldAcrossArchives(from first: UInt64, while keep: (EventRecord) -> Bool) throws(StoreError) -> LabelList {
        let history = self.history()
        do {
            let archives = try history.archives(from: first)
            guard let oldest = archives.first else { return try Self.origin(of: storage) }
            let header = try history.open(oldest).header
            var list = try LabelList.origin(of: header, path: oldest.path)
            var refused: ProjectionError?
            try history.forEachRecord(from: list.lastSeq + 1) { (record) throws(EventLogError) -> Bool in
                guard keep(record) else { return false }
                do throws(ProjectionError) { try list.replay(record) } catch {
                    refused = error
                    return false
                }
                return true
            }
            if let refused { throw StoreError.inconsistent(refused) }
            return list
        } catch let error as EventLogError {
            throw StoreError.storage(error)
        } catch let error as StoreError {
            throw error
        } catch {
            preconditionFailure("a history fold throws only EventLogError and StoreError: \(error)")
        }
    }
}
