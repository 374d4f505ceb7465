import EventLog

/// Title text as the fold reads it: a `String` (an ``EventRecord``'s) or
/// bytes borrowed from a log buffer. The fold compares and stores bytes, and
/// makes a `String` only for a ``Label`` it must return or an error message.
protocol FoldText {
    /// Calls `body` with the text's UTF-8 bytes.
    func withUTF8Bytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
    /// The number of UTF-8 bytes.
    var utf8Count: Int { get }
    /// The text as a `String`.
    var stringValue: String { get }
}

extension String: FoldText {
    @inline(__always)
    func withUTF8Bytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var copy = self
        return try copy.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
    }

    var utf8Count: Int { utf8.count }
    var stringValue: String { self }
}

/// One event as the fold sees it: ``LabelEvent``'s cases over any
/// ``FoldText`` and any collection of ids, so records and borrowed record
/// views go through the same fold.
enum FoldEvent<Text: FoldText, Order: Collection<LabelID>> {
    case added(id: LabelID, title: Text, isEnabled: Bool, index: Int)
    case renamed(id: LabelID, oldTitle: Text, newTitle: Text)
    case toggled(id: LabelID, isEnabled: Bool)
    case removed(id: LabelID, index: Int, title: Text, isEnabled: Bool)
    case moved(id: LabelID, from: Int, to: Int)
    case reordered(order: Order)
    case rejected
}

extension LabelEvent {
    /// This event as the fold sees it.
    @inline(__always)
    var foldEvent: FoldEvent<String, [LabelID]> {
        switch self {
        case .added(let id, let title, let isEnabled, let index): .added(id: id, title: title, isEnabled: isEnabled, index: index)
        case .renamed(let id, let oldTitle, let newTitle): .renamed(id: id, oldTitle: oldTitle, newTitle: newTitle)
        case .toggled(let id, let isEnabled): .toggled(id: id, isEnabled: isEnabled)
        case .removed(let id, let index, let title, let isEnabled): .removed(id: id, index: index, title: title, isEnabled: isEnabled)
        case .moved(let id, let from, let to): .moved(id: id, from: from, to: to)
        case .reordered(let order): .reordered(order: order)
        case .rejected: .rejected
        }
    }
}

extension UTF8Text: FoldText {
    @inline(__always)
    func withUTF8Bytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try body(bytes) }
    var utf8Count: Int { count }
    var stringValue: String { string }
}

extension EventRecordView.Event {
    /// This borrowed event as the fold sees it (texts stay borrowed).
    @inline(__always)
    var foldEvent: FoldEvent<UTF8Text, EventRecordView.IDs> {
        switch self {
        case .added(let id, let title, let isEnabled, let index): .added(id: id, title: title, isEnabled: isEnabled, index: index)
        case .renamed(let id, let oldTitle, let newTitle): .renamed(id: id, oldTitle: oldTitle, newTitle: newTitle)
        case .toggled(let id, let isEnabled): .toggled(id: id, isEnabled: isEnabled)
        case .removed(let id, let index, let title, let isEnabled): .removed(id: id, index: index, title: title, isEnabled: isEnabled)
        case .moved(let id, let from, let to): .moved(id: id, from: from, to: to)
        case .reordered(let order): .reordered(order: order)
        case .rejected: .rejected
        }
    }
}
