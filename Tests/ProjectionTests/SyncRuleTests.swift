import EventLog
import Foundation
import Testing

@testable import LabelProjection

/// The rules of docs/SYNC.md, one named case each: two devices edit the
/// same list offline, device A's commands reach the server first.
@Suite("Sync rules")
struct SyncRuleTests {
    let a = SyncRebaseModelTests.id(0, 0)
    let b = SyncRebaseModelTests.id(0, 1)
    let c = SyncRebaseModelTests.id(0, 2)

    /// Device commands made on the initial list, then pushed in order; the server's state and each decision.
    func sync(_ a: [LabelCommand], then b: [LabelCommand]) throws -> (SyncState, [SyncDecision]) {
        let (state, decisions, _) = try syncRecording(a, then: b)
        return (state, decisions)
    }

    /// ``sync(_:then:)``, and the events the server appended.
    func syncRecording(_ a: [LabelCommand], then b: [LabelCommand]) throws -> (SyncState, [SyncDecision], [LabelEvent]) {
        func outbox(_ commands: [LabelCommand]) throws -> [SyncCommand] {
            var device = try SyncState(replaying: SyncRebaseModelTests.initial)
            return try commands.compactMap { command in
                guard let made = try device.syncCommand(for: command) else { return nil }
                device.applyPending(made)
                return made
            }
        }
        var server = try SyncState(replaying: SyncRebaseModelTests.initial)
        var ledger = SyncLedger()
        var decisions: [SyncDecision] = []
        var appended: [LabelEvent] = []
        for command in try outbox(a) + outbox(b) {
            let decision = SyncRebase.decide(command, on: server, resolving: ledger.resolve)
            let first = server.list.lastSeq + 1
            for event in SyncRebase.events(for: decision, of: command) {
                try server.fold(EventRecord(seq: server.list.lastSeq + 1, timestamp: command.madeAt, event: event))
                appended.append(event)
            }
            ledger.record(command, decision, firstSeq: first, state: server)
            decisions.append(decision)
        }
        return (server, decisions, appended)
    }

    @Test func aRenameOfALabelAnotherDeviceToggledApplies() throws {
        let (server, decisions) = try sync([.toggle(id: a)], then: [.rename(id: a, title: "Ring")])
        #expect(server.list.label(a)?.title == "Ring")
        #expect(server.list.label(a)?.isEnabled == false)
        guard case .apply = decisions[1] else {
            Issue.record("\(decisions)")
            return
        }
    }

    @Test func aRenameOfALabelAnotherDeviceRemovedIsRefusedWithTheSeedsMessage() throws {
        let (server, decisions, appended) = try syncRecording([.remove(id: a)], then: [.rename(id: a, title: "Ring")])
        #expect(decisions[1] == .refused(SyncRefusal(.labelRemoved)))
        #expect(server.list.lastSeq == 5)
        guard appended.count == 2, case .rejected(let id, let command, let reason) = appended[1] else {
            Issue.record("no rejected record after the removal: \(appended)")
            return
        }
        #expect(id == a)
        #expect(reason == "Edit skipped: label was removed.")
        #expect(command.hasPrefix("rename \(a) to \"Ring\" [batch "))
    }

    @Test func theLaterOfTwoRenamesOfOneTitleIsRefusedAndTheFirstStays() throws {
        let (server, decisions) = try sync([.rename(id: a, title: "First")], then: [.rename(id: a, title: "Second")])
        #expect(server.list.label(a)?.title == "First")
        #expect(decisions[1] == .refused(SyncRefusal(.titleChanged)))
        #expect(SyncRefusal(.titleChanged).message == "Edit skipped: title was changed on another device.")
    }

    /// A rename whose title is already the label's — its own first attempt,
    /// which can no longer be found (the row was cut), or another device's to
    /// the same bytes — is satisfied whatever the version: not refused and
    /// recorded as if it had been overwritten.
    @Test func aRenameToTheTitleAlreadyThereIsSatisfiedWhateverTheVersion() throws {
        let (server, decisions) = try sync([.rename(id: a, title: "Same")], then: [.rename(id: a, title: "Same")])
        #expect(decisions[1] == .satisfied)
        #expect(server.list.lastSeq == 4, "no refusal recorded")
        let resent = SyncCommand(.rename(id: a, title: "Same", read: .server(seq: 1)))
        #expect(SyncRebase.decide(resent, on: server) == .satisfied)
        let other = SyncCommand(.rename(id: a, title: "Other", read: .server(seq: 1)))
        #expect(SyncRebase.decide(other, on: server) == .refused(SyncRefusal(.titleChanged)))
    }

    @Test func aDevicesSecondRenameOfItsOwnPendingTitleApplies() throws {
        let (server, decisions) = try sync([.rename(id: a, title: "One"), .rename(id: a, title: "Two")], then: [])
        #expect(server.list.label(a)?.title == "Two")
        #expect(decisions.allSatisfy { if case .apply = $0 { true } else { false } })
    }

    @Test func aMoveIsRebasedByIntentNotByIndex() throws {
        // A adds a label first; B, which never saw it, moves c after a: c lands after a, not at B's index 1.
        let (server, _) = try sync(
            [.add(title: "new", isEnabled: true, id: SyncRebaseModelTests.id(1, 0), at: 0)], then: [.move(id: c, to: 1)])
        #expect(server.list.ids == [SyncRebaseModelTests.id(1, 0), a, c, b])
    }

    @Test func aToggleToTheValueAnotherDeviceSetIsSatisfiedAndWritesNothing() throws {
        let (server, decisions) = try sync([.toggle(id: a)], then: [.setEnabled(id: a, isEnabled: false)])
        #expect(decisions[1] == .satisfied)
        #expect(server.list.lastSeq == 4)
    }

    @Test func aReorderKeepsTheLabelsAddedElsewhereWhereTheyAre() throws {
        let added = SyncRebaseModelTests.id(1, 0)
        let (server, _) = try sync([.add(title: "new", isEnabled: true, id: added, at: 1)], then: [.reverse])
        // The server had a, new, b, c; B's reverse (c, b, a) takes the positions of a, b, c.
        #expect(server.list.ids == [c, added, b, a])
    }

    @Test func aReorderOfLabelsAllRemovedElsewhereIsRefused() {
        var state = SyncState()
        let command = SyncCommand(.reorder([a, b]))
        #expect(SyncRebase.decide(command, on: state) == .refused(SyncRefusal(.labelRemoved)))
        state = (try? SyncState(replaying: SyncRebaseModelTests.initial)) ?? state
        #expect(SyncRebase.decide(SyncCommand(.reorder([])), on: state) == .satisfied)
    }
}
