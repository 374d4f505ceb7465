import EventLog

/// A private fold that turns records into one subscriber's notifications:
/// used to replay history (``LabelStore/subscribe(to:from:_:)``) and to catch
/// a stream up after it dropped its buffer.
struct NotificationFold: Sendable {
    let dependency: Dependency
    /// The state after the last record folded.
    private(set) var list: LabelList
    /// The view being maintained over `list`, for a view dependency.
    private var view: FilteredView?

    /// A fold continuing from `list` (the state after `list.lastSeq`).
    init(dependency: Dependency, list: LabelList) {
        self.dependency = dependency
        self.list = list
        if case .view(let query) = dependency { view = FilteredView(query: query, list: list) }
    }

    /// Folds `record` (which must be the next one) and returns the subscriber's
    /// notification for it, if the record changed what it depends on.
    mutating func step(_ record: EventRecord) throws(StoreError) -> ChangeNotification? {
        let change: LabelChange
        do throws(ProjectionError) { change = try list.apply(record) } catch { throw StoreError.inconsistent(error) }
        let viewChanges = view?.apply(change, in: list) ?? []
        guard ChangeNotification.isNotified(dependency, by: change, viewChanges: viewChanges) else { return nil }
        return ChangeNotification(dependency: dependency, change: change, viewChanges: viewChanges)
    }

    /// Folds `records`, read from the log to bring this fold towards
    /// `target`, appending the notifications to `out`.
    ///
    /// - Throws: ``StoreError`` with a ``StoreError/Code/storage(_:)`` code of
    ///   ``EventLogError/Code/corruptRecord`` when `records` is empty (the log
    ///   ends before `target`), and what ``step(_:)`` throws.
    mutating func step(
        through records: [EventRecord], toward target: UInt64, into out: inout [ChangeNotification]
    ) throws(StoreError) {
        guard !records.isEmpty else {
            throw StoreError(
                .storage(EventLogError(.corruptRecord, "record \(list.lastSeq + 1) is missing")),
                "The log ends before seq \(target).")
        }
        for record in records {
            if let notification = try step(record) { out.append(notification) }
        }
    }
}
