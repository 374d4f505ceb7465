import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// The sync rule (``SyncState``, ``SyncRebase``, ``SyncLedger``) against the
/// plain model (``PlainSyncList``): two devices start from one server list,
/// each makes a short run of edits offline, and their outboxes reach the
/// server in every interleaving that keeps each device's order. Every
/// intent made, every optimistic list, every decision and every server list
/// must be the model's; every device's optimistic list must be what its
/// edits make of the list without sync.
@Suite("Sync rebase against a plain model")
struct SyncRebaseModelTests {
    /// Three labels: "a" on, "b" off, "c" on (seqs 1–3).
    static let initial: [EventRecord] = ["a", "b", "c"].enumerated().map { i, title in
        EventRecord(
            seq: UInt64(i + 1), timestamp: EventTimestamp(millisecondsSince1970: 1_000),
            event: .added(id: id(0, i), title: title, isEnabled: i != 1, index: i))
    }

    /// A fixed id: device `device` (0 for the initial labels), step `step`.
    static func id(_ device: Int, _ step: Int) -> LabelID {
        LabelID(UUID(uuidString: String(format: "%08X-0000-4000-8000-%012X", device, step))!)
    }

    /// A fixed batch id: device `device`, step `step`.
    static func batch(_ device: Int, _ step: Int) -> UUID {
        UUID(uuidString: String(format: "%08X-0000-4000-8000-%012X", 0xB000 + device, step))!
    }

    static var plainInitial: PlainSyncList {
        var plain = PlainSyncList()
        for record in initial {
            guard case .added(let id, let title, let isEnabled, _) = record.event else { continue }
            plain.live.append(.init(id: id, title: title, isEnabled: isEnabled))
            plain.titleVersions[id] = .server(seq: record.seq)
            plain.lastSeq = record.seq
        }
        return plain
    }

    /// The edits a device can make at its state, step `step`: an add first
    /// and last; per label a rename, a toggle, a remove, a move first and last; a reverse.
    static func alphabet(_ plain: PlainSyncList, device: Int, step: Int) -> [LabelCommand] {
        let title = "\(device == 1 ? "A" : "B")\(step)"
        var commands: [LabelCommand] = [
            .add(title: title, isEnabled: true, id: id(device, step), at: 0),
            .add(title: title, isEnabled: false, id: id(device, step), at: nil)
        ]
        for item in plain.live {
            commands += [
                .rename(id: item.id, title: title), .toggle(id: item.id), .remove(id: item.id), .move(id: item.id, to: 0),
                .move(id: item.id, to: plain.live.count - 1)
            ]
        }
        commands.append(.reverse)
        return commands
    }

    static func items(_ list: LabelList) -> [PlainSyncList.Item] {
        list.labels.map { .init(id: $0.id, title: $0.title, isEnabled: $0.isEnabled) }
    }

    /// A device's edits made offline: the outbox it sends, checked against
    /// the model and against the same edits made without sync.
    static func makeOutbox(device: Int, _ commands: [LabelCommand], failures: inout [String]) throws -> [SyncCommand] {
        var state = try SyncState(replaying: initial)
        var plain = plainInitial
        var local = try LabelList(replaying: initial)
        var outbox: [SyncCommand] = []
        for (step, command) in commands.enumerated() {
            let made = try state.syncCommand(
                for: command, batchID: batch(device, step), madeAt: EventTimestamp(millisecondsSince1970: 2_000))
            if made?.intent != plain.intent(for: command) {
                failures.append(
                    "device \(device) made \(String(describing: made?.intent)) for \(command), the model \(String(describing: plain.intent(for: command)))"
                )
            }
            for event in try local.events(for: command) {
                _ = try local.apply(
                    EventRecord(seq: local.lastSeq + 1, timestamp: EventTimestamp(millisecondsSince1970: 2_000), event: event))
            }
            guard let made else { continue }
            let decision = state.applyPending(made)
            let outcome = plain.push(made, pendingVersion: .pending(batch: made.batchID), resolve: { .pending(batch: $0) })
            guard case .apply = decision, outcome == .applied else {
                failures.append("device \(device): its own \(made) decided \(decision) / model \(outcome) on its own state")
                continue
            }
            outbox.append(made)
            if items(state.list) != items(local) || items(state.list) != plain.live {
                failures.append(
                    "device \(device) after \(command): optimistic \(items(state.list)), local \(items(local)), model \(plain.live)")
            }
        }
        return outbox
    }

    static func outcome(_ decision: SyncDecision) -> PlainSyncList.Outcome {
        switch decision {
        case .apply: .applied
        case .satisfied: .satisfied
        case .refused(let refusal): .refused(refusal.reason)
        }
    }

    /// Pushes `commands` in this order to the server list, checking each decision and list.
    static func push(_ commands: [SyncCommand], failures: inout [String]) throws -> SyncState {
        var server = try SyncState(replaying: initial)
        var ledger = SyncLedger()
        var plain = plainInitial
        var plainLedger: [UUID: SyncCommand.TitleVersion] = [:]
        for command in commands {
            let decision = SyncRebase.decide(command, on: server, resolving: ledger.resolve)
            let firstSeq = server.list.lastSeq + 1
            for event in SyncRebase.events(for: decision, of: command) {
                try server.fold(EventRecord(seq: server.list.lastSeq + 1, timestamp: command.madeAt, event: event))
            }
            ledger.record(command, decision, firstSeq: firstSeq, state: server)
            let expected = plain.push(command, pendingVersion: nil, resolve: { plainLedger[$0] })
            if case .refused = expected {
            } else if let id = command.labelID, plain.titleVersions[id] != nil {
                switch command.intent {
                case .add, .rename: plainLedger[command.batchID] = plain.titleVersions[id]
                default: break
                }
            }
            if outcome(decision) != expected || items(server.list) != plain.live || server.list.lastSeq != plain.lastSeq {
                failures.append(
                    "pushing \(command) after \(commands.prefix { $0 != command }.map(\.description)): decided \(decision), model \(expected); list \(items(server.list)), model \(plain.live)"
                )
                break
            }
        }
        return server
    }

    /// Every order of `a` and `b` that keeps each one's order.
    static func interleavings(_ a: [SyncCommand], _ b: [SyncCommand]) -> [[SyncCommand]] {
        if a.isEmpty { return [b] }
        if b.isEmpty { return [a] }
        return interleavings(Array(a.dropFirst()), b).map { [a[0]] + $0 } + interleavings(a, Array(b.dropFirst())).map { [b[0]] + $0 }
    }

    /// Every run of `length` edits device `device` can make from the initial list.
    static func runs(device: Int, length: Int) throws -> [[LabelCommand]] {
        var runs: [([LabelCommand], PlainSyncList)] = [([], plainInitial)]
        for step in 0..<length {
            runs = runs.flatMap { run, plain in
                alphabet(plain, device: device, step: step).compactMap { command -> ([LabelCommand], PlainSyncList)? in
                    var next = plain
                    guard let intent = plain.intent(for: command) else { return (run + [command], next) }
                    _ = next.push(
                        SyncCommand(intent, batchID: batch(device, step)), pendingVersion: .pending(batch: batch(device, step)),
                        resolve: { .pending(batch: $0) })
                    return (run + [command], next)
                }
            }
        }
        return runs.map(\.0)
    }

    @Test func everyInterleavingOfTwoDevicesShortRunsDecidesAsThePlainModel() throws {
        var failures: [String] = []
        var scenarios = 0
        for (lengthA, lengthB) in [(1, 1), (2, 1)] {
            let runsB = try Self.runs(device: 2, length: lengthB)
            let outboxesB = try runsB.map { run in try Self.makeOutbox(device: 2, run, failures: &failures) }
            for runA in try Self.runs(device: 1, length: lengthA) {
                let outboxA = try Self.makeOutbox(device: 1, runA, failures: &failures)
                for outboxB in outboxesB {
                    for order in Self.interleavings(outboxA, outboxB) {
                        _ = try Self.push(order, failures: &failures)
                        scenarios += 1
                    }
                }
                if failures.count > 5 { break }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) mismatches; the first: \(failures.prefix(5).joined(separator: "\n"))")
        #expect(scenarios > 10_000, "the enumeration shrank to \(scenarios) scenarios")
    }

    /// Longer runs, sampled: two devices, three edits each, every interleaving (20).
    @Test(arguments: [UInt64(1), 2, 3])
    func sampledLongerRunsDecideAsThePlainModel(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var failures: [String] = []
        for _ in 0..<40 {
            var outboxes: [[SyncCommand]] = []
            for device in 1...2 {
                var plain = Self.plainInitial
                var run: [LabelCommand] = []
                for step in 0..<3 {
                    let choices = Self.alphabet(plain, device: device, step: step)
                    let command = choices[Int(random.next() % UInt64(choices.count))]
                    run.append(command)
                    if let intent = plain.intent(for: command) {
                        _ = plain.push(
                            SyncCommand(intent, batchID: Self.batch(device, step)),
                            pendingVersion: .pending(batch: Self.batch(device, step)),
                            resolve: { .pending(batch: $0) })
                    }
                }
                outboxes.append(try Self.makeOutbox(device: device, run, failures: &failures))
            }
            for order in Self.interleavings(outboxes[0], outboxes[1]) { _ = try Self.push(order, failures: &failures) }
        }
        #expect(failures.isEmpty, "\(failures.count) mismatches; the first: \(failures.prefix(5).joined(separator: "\n"))")
    }
}
