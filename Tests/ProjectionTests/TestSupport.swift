import EventLog
import Foundation
import LabelStoreTestSupport

@testable import LabelProjection

/// A record at `seq` with a fixed timestamp (`seq` seconds after 2026-01-01).
func record(_ seq: UInt64, _ event: LabelEvent) -> EventRecord {
    EventRecord(seq: seq, timestamp: EventTimestamp(millisecondsSince1970: 1_767_225_600_000 + Int64(seq) * 1000), event: event)
}

/// A thread-safe append-only list, for collecting what callbacks receive.
final class Collector<Element: Sendable>: Sendable {
    private let items = Locked<[Element]>([])
    func append(_ item: Element) { items.withLock { $0.append(item) } }
    var all: [Element] { items.withLock { $0 } }
    var count: Int { items.withLock { $0.count } }
    /// The items from index `start` on.
    func items(from start: Int) -> [Element] { items.withLock { Array($0[min(start, $0.count)...]) } }
    func removeAll() { items.withLock { $0.removeAll() } }
}

/// A model of a store's current list, for generating commands against it.
extension ModelList {
    /// The rows and removals of `list` (its versions and seqs are not mirrored).
    init(mirroring list: LabelList) {
        self.init()
        rows = list.labels
        removedIDs = Array(list.knownIDs.subtracting(list.ids)).sorted()
        for id in removedIDs { removed[id] = list.removal(of: id) }
    }
}

/// The plain-array reference: a list of labels and the facts the store must agree with.
struct ModelList: Equatable {
    var rows: [Label] = []
    var removed: [LabelID: UInt64] = [:]
    /// The removed ids in removal order (deterministic, unlike the dictionary's order).
    var removedIDs: [LabelID] = []
    var listVersion: UInt64 = 0
    var lastSeq: UInt64 = 0
    /// Precomputed view rows for this state (tests cache them once per state; not part of equality).
    var cachedViews: [ViewQuery: [Label]] = [:]

    var enabledCount: Int { rows.filter(\.isEnabled).count }
    var ids: [LabelID] { rows.map(\.id) }
    func index(_ id: LabelID) -> Int? { rows.firstIndex { $0.id == id } }
    func row(_ id: LabelID) -> Label? { rows.first { $0.id == id } }

    /// Applies an event the caller knows is consistent (the model never validates).
    mutating func apply(_ event: LabelEvent, seq: UInt64) {
        lastSeq = seq
        cachedViews = [:]
        switch event {
        case .added(let id, let title, let isEnabled, let index):
            rows.insert(Label(id: id, title: title, isEnabled: isEnabled, version: seq), at: index)
            if removed.removeValue(forKey: id) != nil { removedIDs.removeAll { $0 == id } }
            listVersion = seq
        case .renamed(let id, _, let new):
            let i = index(id)!
            if Array(rows[i].title.utf8) != Array(new.utf8) {
                rows[i].title = new
                rows[i].version = seq
            }
        case .toggled(let id, let isEnabled):
            let i = index(id)!
            rows[i].isEnabled = isEnabled
            rows[i].version = seq
        case .removed(let id, let index, _, _):
            rows.remove(at: index)
            removed[id] = seq
            removedIDs.append(id)
            listVersion = seq
        case .moved(_, let from, let to):
            let row = rows.remove(at: from)
            rows.insert(row, at: to)
            listVersion = seq
        case .reordered(let order):
            if order != ids {
                let byID = Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0) })
                rows = order.map { byID[$0]! }
                listVersion = seq
            }
        case .rejected:
            break
        }
    }

    /// Whether `list` holds exactly this model's state.
    static func == (a: ModelList, b: ModelList) -> Bool {
        a.rows == b.rows && a.removed == b.removed && a.listVersion == b.listVersion && a.lastSeq == b.lastSeq
    }

    func matches(_ list: LabelList) -> Bool {
        list.labels == rows && list.enabledCount == enabledCount && list.listVersion == listVersion
            && list.lastSeq == lastSeq && list.count == rows.count
            && rows.allSatisfy { list.label($0.id) == $0 && list.removal(of: $0.id) == nil }
            && removed.allSatisfy { list.removal(of: $0.key) == $0.value && list.label($0.key) == nil }
            && list.knownIDs == Set(rows.map(\.id)).union(removed.keys)
    }
}

/// A store over a fresh in-memory log, with a stepping clock.
func makeStore(_ log: InMemoryEventLog = InMemoryEventLog(), recordRejections: Bool = false) throws -> LabelStore {
    try LabelStore(storage: log, options: .init(recordRejections: recordRejections, clock: StepClock().now))
}

/// Subscribes and collects every notification (delivery is synchronous in single-threaded tests).
func record(_ store: LabelStore, _ dependency: Dependency) -> (Subscription, Collector<ChangeNotification>) {
    let collector = Collector<ChangeNotification>()
    let subscription = store.subscribe(to: dependency) { collector.append($0) }
    return (subscription, collector)
}
