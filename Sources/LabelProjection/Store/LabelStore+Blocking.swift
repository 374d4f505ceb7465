import EventLog

/// Blocking writes called on purpose from `async` code.
///
/// In an `async` function (a task, a main-actor method) Swift resolves
/// `try store.toggle(id)` to the `async` overload, which needs `await` and
/// suspends. To write without suspending — a test that must see a write
/// before its next line runs, a migration, the reproduction of a stale row
/// with two writes in one main-actor turn — call the same write through
/// ``LabelStore/blocking``: `try store.blocking.toggle(id)`. It is the
/// synchronous write (same validation, durability, errors and delivery), and
/// it blocks the calling thread until the append is durable: keep it off
/// the main actor of an app whose durability syncs on every write.
extension LabelStore {
    /// The store's synchronous writes, for `async` code that means to block.
    ///
    /// Thread-safe, as the store is; a value holding the store.
    public var blocking: Blocking { Blocking(store: self) }

    /// The synchronous writes of a ``LabelStore`` under names an `async`
    /// context resolves to them, not to the `async` overloads (see the
    /// extension's discussion). Each is exactly the store's synchronous write:
    /// it returns once the records are as durable as
    /// ``LabelStore/Options/durability`` promises and the projection shows them.
    public struct Blocking: Sendable {
        /// The store written to.
        public let store: LabelStore

        /// ``LabelStore/add(_:isEnabled:id:at:options:)-7dxb4``, blocking.
        @discardableResult
        public func add(
            _ title: String, isEnabled: Bool = true, id: LabelID? = nil, at position: Int? = nil,
            options: WriteOptions = WriteOptions()
        ) throws(StoreError) -> LabelID {
            try store.add(title, isEnabled: isEnabled, id: id, at: position, options: options)
        }

        /// ``LabelStore/rename(_:to:options:)-7lfit``, blocking.
        @discardableResult
        public func rename(_ id: LabelID, to title: String, options: WriteOptions = WriteOptions()) throws(StoreError) -> [EventRecord] {
            try store.rename(id, to: title, options: options)
        }

        /// The store's synchronous `setEnabled(_:_:options:)`, blocking.
        @discardableResult
        public func setEnabled(_ id: LabelID, _ isEnabled: Bool, options: WriteOptions = WriteOptions()) throws(StoreError) -> [EventRecord]
        {
            try store.setEnabled(id, isEnabled, options: options)
        }

        /// The store's synchronous `toggle(_:options:)`, blocking.
        @discardableResult
        public func toggle(_ id: LabelID, options: WriteOptions = WriteOptions()) throws(StoreError) -> [EventRecord] {
            try store.toggle(id, options: options)
        }

        /// The store's synchronous `remove(_:options:)`, blocking.
        @discardableResult
        public func remove(_ id: LabelID, options: WriteOptions = WriteOptions()) throws(StoreError) -> [EventRecord] {
            try store.remove(id, options: options)
        }

        /// The store's synchronous `move(_:to:options:)`, blocking.
        @discardableResult
        public func move(_ id: LabelID, to position: Int, options: WriteOptions = WriteOptions()) throws(StoreError) -> [EventRecord] {
            try store.move(id, to: position, options: options)
        }

        /// The store's synchronous `reverse(options:)`, blocking.
        @discardableResult
        public func reverse(options: WriteOptions = WriteOptions()) throws(StoreError) -> [EventRecord] {
            try store.reverse(options: options)
        }

        /// The store's synchronous `reorder(_:options:)`, blocking.
        @discardableResult
        public func reorder(_ ids: [LabelID], options: WriteOptions = WriteOptions()) throws(StoreError) -> [EventRecord] {
            try store.reorder(ids, options: options)
        }

        /// ``LabelStore/execute(_:options:)-8dri1``, blocking.
        @discardableResult
        public func execute(_ command: LabelCommand, options: WriteOptions = WriteOptions()) throws(StoreError) -> [EventRecord] {
            try store.execute(command, options: options)
        }

        /// The store's synchronous `execute(batch:options:)`, blocking.
        @discardableResult
        public func execute(batch commands: [LabelCommand], options: WriteOptions = WriteOptions()) throws(StoreError)
            -> [EventRecord]
        {
            try store.execute(batch: commands, options: options)
        }

        /// The store's synchronous `append(entries:)`, blocking.
        @discardableResult
        public func append(entries: [LogEntry]) throws(StoreError) -> [EventRecord] {
            try store.append(entries: entries)
        }
    }
}
