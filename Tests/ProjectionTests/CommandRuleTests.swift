import EventLog
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// The store's write rules: no-ops, refusals, stale versions, batches, audit records, raw appends.
@Suite struct CommandRuleTests {
    @Test func writesThatChangeNothingAppendNothingAndAreNotErrors() throws {
        let store = try makeStore()
        let a = try store.add("A", isEnabled: true)
        let seq = store.lastSeq
        #expect(try store.setEnabled(a, true).isEmpty)
        #expect(try store.rename(a, to: "A").isEmpty)
        #expect(try store.move(a, to: 0).isEmpty)
        #expect(try store.reverse().isEmpty)
        #expect(try store.reorder([a]).isEmpty)
        #expect(store.lastSeq == seq)
    }

    @Test func outOfRangePositionsAndMalformedCommandsAreRefusedAndAppendNothing() throws {
        let store = try makeStore()
        let a = try store.add("A")
        let seq = store.lastSeq
        #expect(throws: StoreError.self) { try store.add("B", at: 2) }
        let add = #expect(throws: StoreError.self) { try store.add("B", at: -1) }
        #expect(add?.code == .positionOutOfRange(position: -1, count: 1))
        let move = #expect(throws: StoreError.self) { try store.move(a, to: 1) }
        #expect(move?.code == .positionOutOfRange(position: 1, count: 1))
        let reorder = #expect(throws: StoreError.self) { try store.reorder([a, a]) }
        #expect(reorder?.code == .invalidCommand)
        let long = #expect(throws: StoreError.self) { try store.rename(a, to: String(repeating: "x", count: LogLimits.maxTitleBytes + 1)) }
        #expect(long?.code == .invalidCommand)
        #expect(store.lastSeq == seq)
    }

    /// NUL is a rule of the command's values (titles, actors, notes), not a
    /// failure of the log: `invalidCommand`, naming the rule and the byte, for
    /// every write that takes a title, and the audit record of the refusal
    /// carries the command's text with the NUL escaped.
    @Test func aStringHoldingNULIsRefusedAsAnInvalidCommandNamingTheRuleNotAsAFailedLog() throws {
        for recordRejections in [false, true] {
            let store = try makeStore(recordRejections: recordRejections)
            let a = try store.add("A")
            let seq = store.lastSeq
            let nul = "Ri\u{0}ng"
            let refusals: [(String, () throws -> Any)] = [
                ("add", { try store.add(nul) }), ("rename", { try store.rename(a, to: nul) }),
                ("batch", { try store.execute(batch: [.add(title: "B"), .rename(id: a, title: nul)]) })
            ]
            var audits = 0
            for (name, write) in refusals {
                let error = #expect(throws: StoreError.self, "\(name)") { _ = try write() }
                #expect(error?.code == .invalidCommand, "\(name)")
                #expect(error?.kind == .invalidCommand, "\(name)")
                #expect(error?.message.contains("may not hold U+0000 (NUL)") == true, "\(name): \(error?.message ?? "")")
                #expect(error?.message.contains("at byte 2") == true, "\(name)")
                #expect(error?.message.contains("could not be written") == false, "\(name): the audit record was written")
                if error?.auditSeq != nil { audits += 1 }
            }
            #expect(audits == (recordRejections ? 3 : 0))
            let rejected = store.snapshot.lastSeq - seq
            #expect(rejected == UInt64(audits))
            for actor in ["ad\u{0}min", String(repeating: "a", count: LogLimits.maxActorBytes + 1)] {
                let error = #expect(throws: StoreError.self) { try store.add("C", options: WriteOptions(actor: actor)) }
                #expect(error?.code == .invalidCommand && error?.auditSeq == nil)
                #expect(error?.message.hasPrefix("The actor") == true, "\(error?.message ?? "")")
            }
            let note = #expect(throws: StoreError.self) { try store.toggle(a, options: WriteOptions(note: "n\u{0}")) }
            #expect(note?.code == .invalidCommand && note?.message.hasPrefix("The note") == true)
            #expect(store.snapshot.lastSeq == seq + rejected, "nothing else was appended")
            #expect(store.labels.map(\.title) == ["A"])
        }
    }

    @Test func staleLabelVersionIsRefusedNamingTheCurrentVersionAndTheChangingSeq() throws {
        let store = try makeStore()
        let a = try store.add("A")
        let seen = try #require(store.labelVersion(a))
        try store.move(a, to: 0)  // a no-op; and moves never change a label's version
        try store.add("B", at: 0)
        try store.move(a, to: 0)
        #expect(store.labelVersion(a) == seen)
        try store.rename(a, to: "A2", options: WriteOptions(expectation: .label(a, version: seen)))
        let changedAt = store.lastSeq
        let error = #expect(throws: StoreError.self) {
            try store.toggle(a, options: WriteOptions(expectation: .label(a, version: seen)))
        }
        #expect(error?.code == .staleVersion(expected: seen, current: changedAt))
        #expect(error?.seq == changedAt && error?.message.contains("seq \(changedAt)") == true)
        #expect(store.lastSeq == changedAt && store.label(a)?.isEnabled == true)
    }

    @Test func staleListVersionIsRefusedWhenMembershipOrOrderChanged() throws {
        let store = try makeStore()
        let a = try store.add("A")
        let seen = store.listVersion
        try store.rename(a, to: "A2")  // a title change does not move the list version
        try store.add("B", options: WriteOptions(expectation: .list(version: seen)))
        let error = #expect(throws: StoreError.self) { try store.reverse(options: WriteOptions(expectation: .list(version: seen))) }
        #expect(error?.code == .staleVersion(expected: seen, current: store.listVersion))
    }

    @Test func batchIsAllOrNothingAndEachCommandSeesThePreviousOnes() throws {
        let store = try makeStore()
        let a = try store.add("A")
        let seq = store.lastSeq
        let b = testID(2)
        let error = #expect(throws: StoreError.self) {
            try store.execute(batch: [.rename(id: a, title: "A2"), .add(title: "B", id: b), .remove(id: testID(99))])
        }
        #expect(error?.batchIndex == 2 && error?.code == .labelNeverAdded)
        #expect(store.lastSeq == seq && store.labels.map(\.title) == ["A"])
        let records = try store.execute(batch: [.add(title: "B", id: b, at: 0), .rename(id: b, title: "B2"), .move(id: b, to: 1)])
        #expect(records.map(\.seq) == [seq + 1, seq + 2, seq + 3])
        #expect(store.labels.map(\.title) == ["A", "B2"])
    }

    @Test func recordedRejectionIsAnAuditRecordVisibleToReplayThatChangesNothing() throws {
        let log = InMemoryEventLog()
        let store = try makeStore(log, recordRejections: true)
        let a = try store.add("Tile")
        try store.remove(a)
        let (subscription, everything) = record(store, .everything)
        let (membershipSubscription, membership) = record(store, .membership)
        defer {
            subscription.cancel()
            membershipSubscription.cancel()
        }
        let before = store.snapshot
        let error = #expect(throws: StoreError.self) { try store.rename(a, to: "Stale", options: WriteOptions(actor: "row 3")) }
        let auditSeq = try #require(error?.auditSeq)
        #expect(auditSeq == before.lastSeq + 1)
        let audit = log.allRecords[Int(auditSeq - 1)]
        guard case .rejected(let id, let command, let reason) = audit.event else {
            Issue.record("not an audit record: \(audit)")
            return
        }
        #expect(id == a && command.contains("rename") && reason.hasPrefix("Edit skipped: label was removed."))
        #expect(audit.actor == "row 3")
        #expect(everything.all.map(\.seq) == [auditSeq] && membership.all.isEmpty)
        #expect(store.labels == before.labels && store.lastSeq == auditSeq)
        let replayed = try makeStore(log)
        #expect(replayed.snapshot == store.snapshot)
    }

    @Test func refusalsAppendNothingWhenRejectionsAreNotRecorded() throws {
        let log = InMemoryEventLog()
        let store = try makeStore(log)
        let a = try store.add("A")
        try store.remove(a)
        let error = #expect(throws: StoreError.self) { try store.toggle(a) }
        #expect(error?.auditSeq == nil)
        #expect(log.lastSeq == 2)
    }

    @Test func rawEntriesAreCheckedByTheFoldAndKeepTheirEnvelope() throws {
        let store = try makeStore()
        let a = testID(1)
        let time = EventTimestamp(millisecondsSince1970: 42)
        let records = try store.append(entries: [
            LogEntry(.added(id: a, title: "A", isEnabled: true, index: 0), timestamp: time, actor: "import", note: "n"),
            LogEntry(.toggled(id: a, isEnabled: false))
        ])
        #expect(records[0].timestamp == time && records[0].actor == "import" && records[0].note == "n")
        let error = #expect(throws: StoreError.self) {
            try store.append(entries: [
                LogEntry(.toggled(id: a, isEnabled: true)), LogEntry(.removed(id: a, index: 1, title: "A", isEnabled: true))
            ])
        }
        #expect(error?.batchIndex == 1)
        if case .inconsistentEvent(let inner)? = error?.code {
            #expect(inner.code == .indexOutOfRange && inner.seq == 4)
        } else {
            Issue.record("wrong code")
        }
        #expect(store.lastSeq == 2 && store.label(a)?.isEnabled == false)
    }

    @Test func timeTravelFoldsToASeqOrStopsBeforeTheFirstLaterTimestamp() throws {
        let store = try makeStore()
        let a = try store.add("A", options: WriteOptions(timestamp: EventTimestamp(millisecondsSince1970: 100)))
        try store.rename(a, to: "B", options: WriteOptions(timestamp: EventTimestamp(millisecondsSince1970: 200)))
        try store.rename(a, to: "C", options: WriteOptions(timestamp: EventTimestamp(millisecondsSince1970: 150)))
        #expect(try store.state(atSeq: 0).isEmpty)
        #expect(try store.state(atSeq: 2).label(a)?.title == "B")
        #expect(try store.state(atSeq: 3) == store.snapshot)
        #expect(try store.state(atTime: EventTimestamp(millisecondsSince1970: 99)).isEmpty)
        // Seq 3 is stamped earlier than seq 2, but the fold stops at seq 2 (stamped after 160).
        #expect(try store.state(atTime: EventTimestamp(millisecondsSince1970: 160)).label(a)?.title == "A")
        let error = #expect(throws: StoreError.self) { try store.state(atSeq: 4) }
        #expect(error?.code == .seqOutOfRange(seq: 4, lastSeq: 3))
    }

    @Test func aSecondWriterOnTheSameStorageIsCaughtUpBeforeAWriteIsRetried() throws {
        let log = InMemoryEventLog()
        let first = try makeStore(log)
        let second = try makeStore(log)
        let a = try first.add("A")
        let (subscription, membership) = record(second, .membership)
        defer { subscription.cancel() }
        let b = try second.add("B")
        #expect(second.labels.map(\.id) == [a, b])
        #expect(membership.all.map(\.seq) == [1, 2])
        try first.refresh()
        #expect(first.snapshot == second.snapshot)
    }

    @Test func closedStoreRefusesWritesButKeepsItsLastState() throws {
        let store = try makeStore()
        try store.add("A")
        store.close()
        let error = #expect(throws: StoreError.self) { try store.add("B") }
        #expect(error?.code == .closed)
        #expect(store.labels.map(\.title) == ["A"])
        #expect(store.subscribe(to: .everything) { _ in }.isCancelled)
    }
}
