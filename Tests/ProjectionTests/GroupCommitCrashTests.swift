import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// Group-committed store writes with the power cut in the middle: threads and
/// tasks write one store at once (so groups form), readers and a subscriber
/// watch it, and at a random append the storage loses power. No acknowledged
/// write may be lost or changed, none may be visible (to a read or a
/// subscriber) before it was durable, and the store shows exactly the
/// acknowledged prefix of what a reopened log holds.
@Suite struct GroupCommitCrashTests {
    static let rounds = ProcessInfo.processInfo.environment["LABELSTORE_SOAK"] != nil ? 400 : 16

    /// What one writer was told: the records of its acknowledged writes, in the order it got them.
    typealias Acknowledged = [[EventRecord]]

    @Test func aPowerCutInTheMiddleOfAGroupLosesNoAcknowledgedWriteAndShowsNoUndurableOne() async throws {
        var rng = SeededGenerator(seed: 0xc0ff_ee11)
        var largestGroup = 0
        var cutGroupsOfSeveral = 0
        for round in 0..<Self.rounds {
            let storage = PowerCutStorage(cutAt: Int.random(in: 2...40, using: &rng), landsOnCut: round % 2 == 1)
            let outcome = try await Self.run(round: round, storage: storage, seed: rng.next())
            largestGroup = max(largestGroup, storage.groupSizes.max() ?? 0)
            if let cut = storage.groupSizes.last, storage.groupSizes.count == storage.cutAt, cut > 1 { cutGroupsOfSeveral += 1 }
            try Self.check(outcome, storage: storage, round: round)
        }
        // The test proves something only if writes were grouped and the power went during a group.
        #expect(largestGroup > 1, "no append carried more than one write: group commit was never exercised")
        #expect(cutGroupsOfSeveral > 0, "the power was never cut during a group of several writes")
    }

    struct Outcome {
        var acknowledged: [Acknowledged]
        var store: LabelStore
        var reads: Int
        var violations: [String]
    }

    /// Runs writers (threads and tasks), a reader and a subscriber against a store over `storage` until the power is cut.
    static func run(round: Int, storage: PowerCutStorage, seed: UInt64) async throws -> Outcome {
        let store = try LabelStore(storage: storage)
        let ids = Locked<[LabelID]>([])
        let violations = Locked<[String]>([])
        let violation: @Sendable (String) -> Void = { message in violations.withLock { if $0.count < 5 { $0.append(message) } } }
        // A subscriber must never hear of a record before it is durable.
        let subscription = store.subscribe(to: .everything) { change in
            let durable = storage.durableCount
            if change.seq > durable { violation("notified of seq \(change.seq) with \(durable) durable") }
        }
        defer { subscription.cancel() }
        let done = Locked(false)
        // A reader: what the store shows is durable.
        let reads = Locked(0)
        let reader = Thread {
            while !done.withLock({ $0 }) {
                let shown = store.lastSeq
                let rows = store.labels.count
                let durable = storage.durableCount
                if shown > durable { violation("read seq \(shown) with \(durable) durable") }
                if rows > durable { violation("read \(rows) labels with \(durable) records durable") }
                reads.withLock { $0 += 1 }
            }
        }
        reader.start()

        let threadCount = 4
        let taskCount = 8
        let threadResults = Locked<[Int: Acknowledged]>([:])
        let threadsDone = DispatchGroup()
        for w in 0..<threadCount {
            threadsDone.enter()
            let writerSeed = seed &+ UInt64(w)
            Thread {
                var rng = SeededGenerator(seed: writerSeed)
                var mine: Acknowledged = []
                while let command = nextCommand(writer: w, ids: ids, &rng) {
                    do {
                        let records = try store.execute(command, options: WriteOptions(actor: "w\(w)"))
                        note(records, into: &mine, ids: ids)
                    } catch {
                        if !isRefusal(error) { break }
                    }
                }
                threadResults.withLock { $0[w] = mine }
                threadsDone.leave()
            }.start()
        }
        let taskResults = await withTaskGroup(of: Acknowledged.self) { group in
            for t in 0..<taskCount {
                let w = threadCount + t
                let writerSeed = seed &+ UInt64(w)
                group.addTask {
                    var rng = SeededGenerator(seed: writerSeed)
                    var mine: Acknowledged = []
                    while let command = nextCommand(writer: w, ids: ids, &rng) {
                        do {
                            let records = try await store.execute(command, options: WriteOptions(actor: "w\(w)"))
                            note(records, into: &mine, ids: ids)
                        } catch {
                            if !isRefusal(error) { break }
                        }
                    }
                    return mine
                }
            }
            var all: [Acknowledged] = []
            for await acknowledged in group { all.append(acknowledged) }
            return all
        }
        await withCheckedContinuation { continuation in
            threadsDone.notify(queue: .global()) { continuation.resume() }
        }
        done.withLock { $0 = true }
        while !reader.isFinished { try await Task.sleep(for: .milliseconds(1)) }
        let acknowledged = threadResults.withLock { Array($0.values) } + taskResults
        return Outcome(acknowledged: acknowledged, store: store, reads: reads.withLock { $0 }, violations: violations.withLock { $0 })
    }

    /// The next command of writer `w`: mostly adds and edits of labels any writer added; `nil` after 300 commands.
    static func nextCommand(writer w: Int, ids: Locked<[LabelID]>, _ rng: inout SeededGenerator) -> LabelCommand? {
        if Int.random(in: 0..<300, using: &rng) == 0 { return nil }
        let known = ids.withLock { $0 }
        guard let id = known.randomElement(using: &rng), Int.random(in: 0..<4, using: &rng) != 0 else {
            return .add(title: "w\(w) \(rng.next() % 1000)", isEnabled: true, id: nil, at: nil)
        }
        switch Int.random(in: 0..<5, using: &rng) {
        case 0: return .rename(id: id, title: "w\(w) renamed \(rng.next() % 1000)")
        case 1: return .toggle(id: id)
        case 2: return .remove(id: id)
        case 3: return .move(id: id, to: 0)
        default: return .setEnabled(id: id, isEnabled: Bool.random(using: &rng))
        }
    }

    /// Records an acknowledged write (and the ids it added, for the other writers).
    static func note(_ records: [EventRecord], into mine: inout Acknowledged, ids: Locked<[LabelID]>) {
        guard !records.isEmpty else { return }
        mine.append(records)
        for record in records {
            if case .added(let id, _, _, _) = record.event { ids.withLock { $0.append(id) } }
        }
    }

    /// Whether `error` refuses one command (the writer goes on), rather than the power being gone.
    static func isRefusal(_ error: any Error) -> Bool {
        guard let error = error as? StoreError else { return false }
        return error.isRejection
    }

    static func check(_ outcome: Outcome, storage: PowerCutStorage, round: Int) throws {
        let durable = storage.durableRecords
        #expect(storage.isDead, "round \(round): the writers stopped before the power was cut")
        let violations = outcome.violations
        #expect(violations.isEmpty, "round \(round): the store showed writes that were not durable yet: \(violations)")
        #expect(outcome.reads > 0, "round \(round): the reader never read")
        var seqs: [UInt64] = []
        for (writer, acknowledged) in outcome.acknowledged.enumerated() {
            // One writer's acknowledgements come in seq order.
            let firsts = acknowledged.map { $0[0].seq }
            #expect(firsts == firsts.sorted(), "round \(round): writer \(writer) was acknowledged out of seq order")
            for record in acknowledged.joined() {
                seqs.append(record.seq)
                guard record.seq >= 1, record.seq <= UInt64(durable.count) else {
                    Issue.record("round \(round): acknowledged seq \(record.seq) is lost (\(durable.count) durable)")
                    continue
                }
                #expect(durable[Int(record.seq) - 1] == record, "round \(round): acknowledged seq \(record.seq) changed")
            }
        }
        let maxAcknowledged = seqs.max() ?? 0
        #expect(Set(seqs).count == seqs.count, "round \(round): a seq was acknowledged twice")
        // Every append before the cut was acknowledged to someone; the cut one to no one.
        #expect(Set(seqs) == Set(maxAcknowledged == 0 ? [] : Array(1...maxAcknowledged)), "round \(round): a gap in the acknowledged seqs")
        let cutGroup = UInt64(storage.landsOnCut ? storage.groupSizes.last ?? 0 : 0)
        #expect(UInt64(durable.count) == maxAcknowledged + cutGroup, "round \(round): durable records beyond the acknowledged ones")
        // The crashed store shows exactly the acknowledged prefix.
        #expect(outcome.store.lastSeq == maxAcknowledged)
        let acknowledgedPrefix = try LabelStore(storage: InMemoryEventLog(records: Array(durable.prefix(Int(maxAcknowledged)))))
        #expect(outcome.store.labels == acknowledgedPrefix.labels, "round \(round): the store shows other than its acknowledged writes")
        // Reopening folds every durable record.
        let reopened = try LabelStore(storage: InMemoryEventLog(records: durable))
        #expect(reopened.lastSeq == UInt64(durable.count))
        if !storage.landsOnCut { #expect(reopened.labels == outcome.store.labels) }
    }
}
