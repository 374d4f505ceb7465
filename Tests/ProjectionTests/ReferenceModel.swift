import EventLog
import LabelStoreTestSupport

@testable import LabelProjection

/// The plain-array reference for commands: what the store must do with each
/// command, written independently of the store (array scans, no indexes).
extension ModelList {
    /// The events a command becomes, or the error code the store must throw.
    func commandEvents(_ command: LabelCommand) -> Result<[LabelEvent], ModelFailure> {
        func resolve(_ id: LabelID) -> Result<Label, ModelFailure> {
            if let row = row(id) { return .success(row) }
            if let seq = removed[id] { return .failure(ModelFailure(code: .labelRemoved(removedAtSeq: seq))) }
            return .failure(ModelFailure(code: .labelNeverAdded))
        }
        switch command {
        case .add(let title, let isEnabled, let id, let at):
            let id = id!  // the model test always passes ids
            if row(id) != nil { return .failure(ModelFailure(code: .labelAlreadyExists)) }
            let index = at ?? rows.count
            guard (0...rows.count).contains(index) else {
                return .failure(ModelFailure(code: .positionOutOfRange(position: index, count: rows.count)))
            }
            return .success([.added(id: id, title: title, isEnabled: isEnabled, index: index)])
        case .rename(let id, let title):
            return resolve(id).map {
                Array($0.title.utf8) == Array(title.utf8) ? [] : [.renamed(id: id, oldTitle: $0.title, newTitle: title)]
            }
        case .setEnabled(let id, let isEnabled):
            return resolve(id).map { $0.isEnabled == isEnabled ? [] : [.toggled(id: id, isEnabled: isEnabled)] }
        case .toggle(let id):
            return resolve(id).map { [.toggled(id: id, isEnabled: !$0.isEnabled)] }
        case .remove(let id):
            return resolve(id).map { [.removed(id: id, index: index(id)!, title: $0.title, isEnabled: $0.isEnabled)] }
        case .move(let id, let to):
            return resolve(id).flatMap { _ in
                guard (0..<rows.count).contains(to) else {
                    return .failure(ModelFailure(code: .positionOutOfRange(position: to, count: rows.count)))
                }
                let from = index(id)!
                return .success(from == to ? [] : [.moved(id: id, from: from, to: to)])
            }
        case .reverse:
            return .success(rows.count < 2 ? [] : [.reordered(order: ids.reversed())])
        case .reorder(let order):
            guard order.count == rows.count, Set(order) == Set(ids), Set(order).count == order.count else {
                return .failure(ModelFailure(code: .invalidCommand))
            }
            return .success(order == ids ? [] : [.reordered(order: order)])
        }
    }

    /// The events of a batch (each command against the state the previous ones leave),
    /// then the expectation check against this state; or the error code and the failing index.
    func events(for commands: [LabelCommand], expectation: VersionExpectation?) -> Result<[LabelEvent], ModelFailure> {
        var work = self
        var all: [LabelEvent] = []
        for (i, command) in commands.enumerated() {
            switch work.commandEvents(command) {
            case .failure(let failure): return .failure(ModelFailure(code: failure.code, batchIndex: commands.count > 1 ? i : nil))
            case .success(let events):
                for event in events { work.apply(event, seq: work.lastSeq + 1) }
                all += events
            }
        }
        switch expectation {
        case .label(let id, let version)?:
            if let row = row(id) {
                if row.version != version { return .failure(ModelFailure(code: .staleVersion(expected: version, current: row.version))) }
            } else if let seq = removed[id] {
                return .failure(ModelFailure(code: .labelRemoved(removedAtSeq: seq)))
            } else {
                return .failure(ModelFailure(code: .labelNeverAdded))
            }
        case .list(let version)?:
            if listVersion != version { return .failure(ModelFailure(code: .staleVersion(expected: version, current: listVersion))) }
        case nil:
            break
        }
        return .success(all)
    }

    /// The rows a view shows, by plain filtering.
    func visible(_ query: ViewQuery) -> [Label] { cachedViews[query] ?? rows.filter(query.matches) }

    /// Computes the rows of `queries` once for this state.
    mutating func cacheViews(_ queries: [ViewQuery]) {
        for query in queries { cachedViews[query] = rows.filter(query.matches) }
    }

    /// The value of `dependency` in this state; a notification is due exactly when it differs across a record.
    func value(of dependency: Dependency) -> AnyHashable {
        switch dependency {
        case .membership: ids
        case .title(let id): row(id)?.title
        case .isEnabled(let id): row(id)?.isEnabled
        case .label(let id): row(id).map { [$0.title, String($0.isEnabled)] }
        case .view(let query): visible(query).map { [$0.id.description, $0.title, String($0.isEnabled)] }
        case .enabledCount: enabledCount
        case .everything: lastSeq
        }
    }
}

/// An error the model expects: the code, and for batches the failing command.
struct ModelFailure: Error, Equatable {
    var code: StoreError.Code
    var batchIndex: Int?
}

/// Random commands for the model test, biased to hit every rule (including refusals).
struct CommandGenerator {
    var rng: SeededGenerator
    var nextID = 0
    let titles = ["Amber", "Cobalt", "Grid", "Grid Two", "Tile", "Ring", "Ring Two", "Café", "CAFE", "copper", "New label"]

    init(seed: UInt64) { rng = SeededGenerator(seed: seed) }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }

    /// A target id: mostly live, sometimes removed, rarely never seen.
    mutating func target(_ model: ModelList) -> LabelID {
        let roll = int(0...99)
        if roll < 80, !model.rows.isEmpty { return model.rows[int(0...(model.rows.count - 1))].id }
        if roll < 95, !model.removedIDs.isEmpty { return model.removedIDs[int(0...(model.removedIDs.count - 1))] }
        return testID(1_000_000 + int(0...9))
    }

    mutating func command(_ model: ModelList) -> LabelCommand {
        let count = model.rows.count
        var kind = int(0...99)
        if count > 30, kind < 25 { kind = 60 }  // keep the list small: remove instead of add
        switch kind {
        case 0..<25:
            let id: LabelID
            if chance(15), !model.removedIDs.isEmpty {
                id = model.removedIDs[int(0...(model.removedIDs.count - 1))]
            } else if chance(5), !model.rows.isEmpty {
                id = model.rows[0].id
            } else {
                nextID += 1
                id = testID(nextID)
            }
            let at: Int? = chance(30) ? nil : int(-1...(count + 1))
            return .add(title: titles[int(0...(titles.count - 1))], isEnabled: chance(60), id: id, at: at)
        case 25..<40: return .rename(id: target(model), title: titles[int(0...(titles.count - 1))])
        case 40..<48: return .setEnabled(id: target(model), isEnabled: chance(50))
        case 48..<58: return .toggle(id: target(model))
        case 58..<72: return .remove(id: target(model))
        case 72..<85: return .move(id: target(model), to: int(-1...count))
        case 85..<90: return .reverse
        default:
            var order = model.ids
            order.shuffle(using: &rng)
            if chance(20), !order.isEmpty { order.removeLast() }
            if chance(5) { order = model.ids }
            return .reorder(order)
        }
    }

    mutating func expectation(_ model: ModelList) -> VersionExpectation? {
        switch int(0...9) {
        case 0:
            let id = target(model)
            let version = model.row(id)?.version ?? 1
            return .label(id, version: chance(50) ? version : max(1, version) - 1)
        case 1:
            return .list(version: chance(50) ? model.listVersion : model.listVersion + 1)
        default:
            return nil
        }
    }
}
