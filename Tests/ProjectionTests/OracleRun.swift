import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

#if Postgres
import LabelStorePostgres
#endif

/// One seeded run of the store oracle: a store (over an in-memory or a file
/// log) driven by random commands, batches and raw entries, watched by many
/// subscribers, and closed, released and reopened (from snapshots, for a
/// file) epoch after epoch; every state, view and notification is checked
/// against ``OracleHistory``.
@MainActor
final class OracleRun {
    /// `server`: a list on the PostgreSQL test server (with the `Postgres` trait).
    /// What the store runs over: an in-memory log, a file log (in format 2, or 4: batch frames), a server list.
    enum Backing: String {
        case memory, file
        case fileFormat4 = "file-format-4"
        case server
    }

    let backing: Backing
    let seed: UInt64
    let recordRejections: Bool
    var gen: CommandGenerator
    var history = OracleHistory()
    /// The storage of the memory and server backings (a fresh list on the server).
    lazy var log: any EventStorage = {
        #if Postgres
        if backing == .server {
            let server = PostgresTestServer.shared
            // Checkpoints every 32 records, in chains of a full image and three deltas: time travel and
            // every reopen read them, so the oracle checks the chains' lists too.
            return try! PostgresEventLog(
                location: server.location(list: "oracle-\(seed)-\(UUID().uuidString.prefix(8))"),
                options: .init(createIfMissing: true, pollInterval: .milliseconds(50), checkpointInterval: 32, checkpointFullEvery: 4))
        }
        #endif
        return InMemoryEventLog()
    }()
    let path: String
    let clock = StepClock()
    var store: LabelStore?
    var observable: ObservableLabels?
    var subscribers: [OracleSubscriber] = []
    var rawID = 0
    /// What the run did, to check that it exercised everything.
    var counts: [String: Int] = [:]

    init(_ backing: Backing, seed: UInt64, directory: String) {
        self.backing = backing
        self.seed = seed
        recordRejections = seed % 2 == 0
        gen = CommandGenerator(seed: seed)
        path = directory + "/oracle-\(seed).labellog"
    }

    func count(_ what: String) { counts[what, default: 0] += 1 }

    /// Runs `epochs` epochs of `steps` steps: open, subscribe, write, end by close and/or release.
    func run(epochs: Int, steps: Int) async throws {
        for epoch in 0..<epochs {
            try openStore(epoch)
            subscribeAtOpening()
            for step in 0..<steps {
                try self.step("seed \(seed) \(backing) epoch \(epoch) step \(step)")
                if subscribers.contains(where: \.failed) { break }
            }
            await endEpoch(epoch)
            if subscribers.contains(where: \.failed) { return }
            subscribers = []
        }
    }

    // MARK: - Epochs

    private func openStore(_ epoch: Int) throws {
        switch backing {
        case .memory, .server:
            let storage = log
            store = try LabelStore(
                storage: storage, options: .init(recordRejections: recordRejections, clock: clock.now, streamBufferLimit: 5))
        case .file, .fileFormat4:
            let snapshots = SnapshotPolicy(
                everyRecords: UInt64(gen.int(15...40)), everyBytes: 0, onClose: gen.chance(50), minRecordsOnClose: 1, keep: 3)
            var options = LabelStore.Options(
                durability: .noSync, createIfMissing: true, recordRejections: recordRejections,
                clock: clock.now, snapshots: snapshots, streamBufferLimit: 7)
            options.newLogFormat = backing == .fileFormat4 ? LogFormat.batchVersion : LogFormat.currentVersion
            store = try LabelStore.open(path: path, options: options)
            if store!.snapshotReport.usedPath != nil { count("opened from a snapshot") }
        }
        #expect(history.model.matches(store!.snapshot), "seed \(seed) \(backing) epoch \(epoch): the reopened store differs from the model")
        observable = ObservableLabels(store: store!)
    }

    /// Ends the epoch by closing the store, releasing it, or both; then every
    /// subscriber must have received exactly what it is owed, and every stream must end.
    private func endEpoch(_ epoch: Int) async {
        let context = "seed \(seed) \(backing) epoch \(epoch) end"
        let last = history.lastSeq
        let mode = (epoch + Int(seed % 3)) % 3  // 0: close; 1: release; 2: close, then release (every run sees all three)
        observable = nil
        if mode != 1 {
            await store?.close()
            count("closed")
        }
        weak var released: LabelStore?
        released = store
        if mode != 0 {
            store = nil
            count("released")
        }
        for subscriber in subscribers {
            if !(await subscriber.drain()) { Issue.record("\(context): \(subscriber.name) did not end") }
            subscriber.verify(history, through: last, complete: true, context: context)
        }
        // (A stream catching up holds its store during a batch; once they have all ended, nothing does.)
        if mode != 0 { #expect(released == nil, "\(context): the store must be gone once released") }
        if let store {
            // Closed, not released: reads and time travel still work, writes are refused.
            let seq = UInt64(gen.int(0...Int(last)))
            #expect(history.states[Int(seq)].matches(try! store.state(atSeq: seq)), "\(context): time travel after close")
            await #expect((try? store.add("after close")) == nil)
        }
        store = nil
    }

    // MARK: - Subscribers

    private func subscribeAtOpening() {
        let ids = (1...4).map(testID)
        var dependencies: [Dependency] = [.membership, .enabledCount, .everything]
        dependencies += ids.flatMap { [Dependency.title($0), .isEnabled($0), .label($0)] }
        for dependency in dependencies { subscribe(.callback, dependency, viewIndex: nil, from: nil) }
        for index in OracleText.queries.indices { subscribe(.callback, .view(OracleText.queries[index]), viewIndex: index, from: nil) }
        subscribe(.stream, .everything, viewIndex: nil, from: 1)
        subscribe(.consumedStream, .everything, viewIndex: nil, from: nil)
        let index = gen.int(0...(OracleText.queries.count - 1))
        subscribe(.stream, .view(OracleText.queries[index]), viewIndex: index, from: randomStart())
        subscribe(.stream, .membership, viewIndex: nil, from: nil)
    }

    private func subscribe(_ kind: OracleSubscriber.Kind, _ dependency: Dependency, viewIndex: Int?, from: UInt64?) {
        do {
            subscribers.append(try OracleSubscriber(store!, kind, dependency, viewIndex: viewIndex, from: from, history: history))
            count("subscriber \(kind.rawValue)")
        } catch {
            Issue.record(
                "seed \(seed) \(backing): subscribing \(kind.rawValue) to \(dependency) from \(String(describing: from)) failed: \(error)")
        }
    }

    private func randomStart() -> UInt64 { UInt64(gen.int(1...Int(history.lastSeq + 1))) }

    private func randomSubscriber() {
        let id: LabelID
        switch gen.int(0...3) {
        case 0 where !history.model.rows.isEmpty: id = history.model.rows[gen.int(0...(history.model.rows.count - 1))].id
        case 1 where !history.model.removedIDs.isEmpty: id = history.model.removedIDs[gen.int(0...(history.model.removedIDs.count - 1))]
        default: id = testID(gen.int(1...12))
        }
        var viewIndex: Int?
        let dependency: Dependency
        switch gen.int(0...9) {
        case 0: dependency = .membership
        case 1: dependency = .enabledCount
        case 2: dependency = .everything
        case 3, 4: dependency = .title(id)
        case 5: dependency = .isEnabled(id)
        case 6: dependency = .label(id)
        default:
            viewIndex = gen.int(0...(OracleText.queries.count - 1))
            dependency = .view(OracleText.queries[viewIndex!])
        }
        let kinds: [OracleSubscriber.Kind] = [.callback, .historyCallback, .stream, .stream, .consumedStream]
        let kind = kinds[gen.int(0...(kinds.count - 1))]
        let from: UInt64? = kind == .historyCallback || (kind != .callback && gen.chance(60)) ? randomStart() : nil
        subscribe(kind, dependency, viewIndex: viewIndex, from: from)
    }

    // MARK: - Steps

    private func step(_ context: String) throws {
        let store = self.store!
        switch gen.int(0...99) {
        case 0..<72: try runCommands(store, context)
        case 72..<82: try appendEntries(store, context)
        case 82..<90: randomSubscriber()
        case 90..<95:
            let seq = UInt64(gen.int(0...Int(history.lastSeq)))
            #expect(history.states[Int(seq)].matches(try store.state(atSeq: seq)), "\(context): state at seq \(seq)")
            count("time travel")
        default:
            if backing == .file || backing == .fileFormat4 {
                try store.writeSnapshot()
                count("snapshot written")
            }
        }
        verifyNow(store, context)
    }

    /// Checks the list, every query's view, the observable model and the subscribers after a step.
    private func verifyNow(_ store: LabelStore, _ context: @autoclosure () -> String) {
        let last = history.lastSeq
        #expect(store.lastSeq == last && history.model.matches(store.snapshot), "\(context()): the store's list differs from the model")
        for (index, query) in OracleText.queries.enumerated() {
            let rows = history.rows(query: index, at: last)
            let shown = store.view(query)
            #expect(shown == rows && shown.map(OracleRow.init) == rows.map(OracleRow.init), "\(context()): view \(index) \(query)")
        }
        if let observable {
            observable.update()
            #expect(
                observable.rows.map(\.label) == history.model.rows && observable.enabledCount == history.model.enabledCount,
                "\(context()): the observable model differs from the model")
        }
        for subscriber in subscribers {
            switch subscriber.kind {
            case .callback, .historyCallback: subscriber.verify(history, through: last, complete: true, context: context())
            case .consumedStream: subscriber.verify(history, through: last, complete: false, context: context())
            case .stream: break
            }
        }
    }

    /// A command or batch (titles from ``OracleText``, renames often to a canonically equivalent title), against the model's expectations.
    private func runCommands(_ store: LabelStore, _ context: String) throws {
        let commands = (0..<(gen.chance(12) ? gen.int(2...4) : 1)).map { _ in tricky(gen.command(history.model)) }
        let expectation = gen.expectation(history.model)
        let expected = history.model.events(for: commands, expectation: expectation)
        let outcome: Result<[EventRecord], StoreError>
        do throws(StoreError) {
            outcome = .success(try store.execute(batch: commands, options: WriteOptions(actor: "oracle", expectation: expectation)))
        } catch {
            outcome = .failure(error)
        }
        switch (expected, outcome) {
        case (.success(let events), .success(let records)):
            #expect(records.map { Self.bytes($0.event) } == events.map(Self.bytes), "\(context): \(commands)")
            for event in events { history.apply(event) }
            count(events.isEmpty ? "no-op" : "written")
        case (.failure(let failure), .failure(let error)):
            #expect(error.code == failure.code && error.batchIndex == failure.batchIndex, "\(context): \(commands)")
            if recordRejections { history.apply(.rejected(id: nil, command: "", reason: "")) }
            count("refused")
        default:
            Issue.record("\(context): \(commands) \(String(describing: expectation)): the model says \(expected), the store \(outcome)")
        }
    }

    /// The command with a title from ``OracleText``; a rename often goes to the current title's canonical twin, or to its very bytes.
    private func tricky(_ command: LabelCommand) -> LabelCommand {
        switch command {
        case .add(_, let isEnabled, let id, let at):
            return .add(title: randomTitle(), isEnabled: isEnabled, id: id, at: at)
        case .rename(let id, _):
            guard let current = history.model.row(id)?.title else { return .rename(id: id, title: randomTitle()) }
            if let twin = OracleText.twin(of: current), gen.chance(45) {
                count("canonical rename")
                return .rename(id: id, title: twin)
            }
            return .rename(id: id, title: gen.chance(10) ? current : randomTitle())
        default:
            return command
        }
    }

    private func randomTitle() -> String { OracleText.titles[gen.int(0...(OracleText.titles.count - 1))] }

    /// Raw entries (as import, revert or another writer append them): valid events made from the model, sometimes ending with
    /// one whose old title is only canonically equal to the label's (which the fold must refuse, appending nothing).
    private func appendEntries(_ store: LabelStore, _ context: String) throws {
        var work = history.model
        var events: [LabelEvent] = []
        for _ in 0..<gen.int(1...3) {
            let event = rawEvent(work)
            work.apply(event, seq: work.lastSeq + 1)
            events.append(event)
        }
        let stale = work.rows.first { OracleText.twin(of: $0.title) != nil }
        let corrupt = stale != nil && gen.chance(15)
        if let stale, corrupt { events.append(.renamed(id: stale.id, oldTitle: OracleText.twin(of: stale.title)!, newTitle: "X")) }
        do throws(StoreError) {
            let records = try store.append(entries: events.map { LogEntry($0, actor: "raw") })
            #expect(!corrupt, "\(context): an entry renaming from a canonically equal but different title must be refused")
            #expect(records.map { Self.bytes($0.event) } == events.map(Self.bytes), "\(context): raw entries")
            for event in events { history.apply(event) }
            count("raw entries")
        } catch {
            #expect(corrupt && error.isInconsistentEvent, "\(context): \(events) refused: \(error)")
            #expect(error.batchIndex == (events.count > 1 ? events.count - 1 : nil))
            count("raw entries refused")
        }
    }

    /// One event consistent with `model`: mostly renames to canonical twins, also to the same bytes, toggles, moves, adds and removes.
    private func rawEvent(_ model: ModelList) -> LabelEvent {
        let rows = model.rows
        guard !rows.isEmpty else {
            rawID += 1
            return .added(id: testID(50_000 + rawID), title: randomTitle(), isEnabled: gen.chance(70), index: 0)
        }
        let i = gen.int(0...(rows.count - 1))
        let row = rows[i]
        switch gen.int(0...9) {
        case 0...3:
            if let twin = OracleText.twin(of: row.title) {
                count("canonical raw rename")
                return .renamed(id: row.id, oldTitle: row.title, newTitle: twin)
            }
            return .renamed(id: row.id, oldTitle: row.title, newTitle: randomTitle())
        case 4: return .renamed(id: row.id, oldTitle: row.title, newTitle: row.title)
        case 5: return .toggled(id: row.id, isEnabled: !row.isEnabled)
        case 6 where rows.count > 1:
            let to = (i + gen.int(1...(rows.count - 1))) % rows.count
            return .moved(id: row.id, from: i, to: to)
        case 7: return .removed(id: row.id, index: i, title: row.title, isEnabled: row.isEnabled)
        default:
            rawID += 1
            return .added(id: testID(50_000 + rawID), title: randomTitle(), isEnabled: gen.chance(70), index: gen.int(0...rows.count))
        }
    }

    /// An event's exact form (titles as their bytes): `LabelEvent`'s own `==` compares titles as `String`s.
    static func bytes(_ event: LabelEvent) -> [UInt8] { Array(String(reflecting: event).utf8) }
}
