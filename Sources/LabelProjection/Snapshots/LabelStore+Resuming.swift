import EventLog

extension LabelStore {
    /// A store whose projection starts as `list` (e.g. a checkpoint's), over
    /// `storage`, whose last seq must be `list.lastSeq` (e.g.
    /// `InMemoryEventLog(after: list.lastSeq)`): nothing is folded, and
    /// subscribers hear about the records appended from then on. For
    /// `labelreplay trace` started from a checkpoint.
    ///
    /// - Precondition: `storage.lastSeq == list.lastSeq`.
    package convenience init(resuming list: LabelList, over storage: some EventStorage) {
        precondition(storage.lastSeq == list.lastSeq, "the storage must end where the list does")
        self.init(storage: storage, ownedWriter: nil, list: list, options: Options())
    }
}
