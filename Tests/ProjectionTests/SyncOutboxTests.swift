import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

@Suite("Sync outbox")
struct SyncOutboxTests {
    let x = SyncRebaseModelTests.id(0, 0)
    let y = SyncRebaseModelTests.id(0, 1)

    /// One command of every intent, with and without actor and note, both kinds of title version.
    let everyKind = Self.makeEveryKind()

    static func makeEveryKind() -> [SyncCommand] {
        let x = SyncRebaseModelTests.id(0, 0)
        let y = SyncRebaseModelTests.id(0, 1)
        let at = EventTimestamp(millisecondsSince1970: 1_700_000_000_123)
        return [
            SyncCommand(.add(id: x, title: "Ring ✓", isEnabled: true, after: [y], index: 3), actor: "ana", note: "first", madeAt: at),
            SyncCommand(.rename(id: x, title: "", read: .server(seq: 41)), madeAt: at),
            SyncCommand(.rename(id: x, title: "Two", read: .pending(batch: UUID())), actor: "ben", madeAt: at),
            SyncCommand(.setEnabled(id: y, isEnabled: false), note: "n", madeAt: at),
            SyncCommand(.remove(id: y), madeAt: EventTimestamp(millisecondsSince1970: -5)),
            SyncCommand(.move(id: x, after: [], index: 0), madeAt: at),
            SyncCommand(.reorder([y, x]), madeAt: at)
        ]
    }

    @Test func commandsSurviveAReopenInOrderWithTheirAttemptsAndLeaveWhenDone() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("labels.labellog.outbox")
        let commands = everyKind
        let attempt = SyncOutbox.Attempt(
            group: UUID(), afterSeq: 77,
            plan: [
                entry(commands[1], .applied(firstSeq: 78), titleSeq: 78), entry(commands[2], .refused(SyncRefusal(.labelRemoved), seq: 79)),
                entry(commands[3], .satisfied, titleSeq: 5)
            ])
        do {
            let outbox = try SyncOutbox.open(path: path)
            for command in commands { try outbox.append(command) }
            try outbox.noteAttempt(SyncOutbox.Attempt(group: UUID(), afterSeq: 11, plan: [entry(commands[0], .satisfied)]))
            try outbox.markDone([entry(commands[0], .applied(firstSeq: 12), titleSeq: 12)])
            try outbox.noteAttempt(attempt)
            outbox.close()
        }
        let outbox = try SyncOutbox.open(path: path)
        #expect(outbox.pending == Array(commands.dropFirst()))
        #expect(outbox.openAttempt == attempt, "the attempt noted last, whose commands are not done")
        #expect(outbox.droppedTailBytes == 0)
        for (i, command) in commands.dropFirst().enumerated() {
            try outbox.markDone([entry(command, i % 2 == 0 ? .satisfied : .refused(SyncRefusal(.titleChanged), seq: UInt64(90 + i)))])
            #expect(outbox.openAttempt == nil, "done with its first command, the attempt is closed")
        }
        #expect(outbox.pending.isEmpty)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == 16, "an empty outbox is cut back to its header")
        outbox.close()
        #expect(try SyncOutbox.open(path: path).pending.isEmpty)
    }

    @Test func aTornLastEntryIsCutAtEveryLengthAndTheEntriesBeforeItKept() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("o.outbox")
        let commands = Array(everyKind.prefix(3))
        var ends: [Int] = []
        do {
            let outbox = try SyncOutbox.open(path: path)
            for command in commands {
                try outbox.append(command)
                ends.append(readFile(path).count)
            }
            outbox.close()
        }
        let whole = readFile(path)
        for cut in (ends[1] + 1)..<ends[2] {
            let torn = dir.file("torn-\(cut)")
            try Data(whole[..<cut]).write(to: URL(fileURLWithPath: torn))
            let outbox = try SyncOutbox.open(path: torn)
            #expect(outbox.pending == Array(commands.prefix(2)), "cut at \(cut)")
            #expect(outbox.droppedTailBytes == Int64(cut - ends[1]))
            outbox.close()
            #expect(readFile(torn) == Array(whole[..<ends[1]]), "the torn entry is cut from the file")
        }
        // The last entry whole, but with a byte flipped: taken as torn too.
        var flipped = whole
        flipped[ends[2] - 1] ^= 0x40
        let last = dir.file("flipped-last")
        try Data(flipped).write(to: URL(fileURLWithPath: last))
        #expect(try SyncOutbox.open(path: last).pending == Array(commands.prefix(2)))
    }

    @Test func aDamagedEntryBeforeTheLastIsRefusedWithItsOffsetAndTheFileKept() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("o.outbox")
        var ends: [Int] = []
        do {
            let outbox = try SyncOutbox.open(path: path)
            for command in everyKind.prefix(3) {
                try outbox.append(command)
                ends.append(readFile(path).count)
            }
            outbox.close()
        }
        var bytes = readFile(path)
        bytes[ends[0] + 12] ^= 0x01  // inside the second entry's payload
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: EventLogError.self) { try SyncOutbox.open(path: path) }
        #expect(error?.code == .corruptRecord)
        #expect(error?.offset == Int64(ends[0]))
        #expect(readFile(path) == bytes, "a refused open changes nothing")
    }

    @Test func aFileThatIsNotAnOutboxIsRefusedByName() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("not-an-outbox")
        try Data("LBLOG-something-else-entirely".utf8).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: EventLogError.self) { try SyncOutbox.open(path: path) }
        #expect(error?.code == .notALog)
        #expect(error?.description.contains("not-an-outbox") == true)
        var header = SyncOutbox.header()
        header[8] = 9
        try Data(header).write(to: URL(fileURLWithPath: path))
        #expect((#expect(throws: EventLogError.self) { try SyncOutbox.open(path: path) })?.code == .unsupportedVersion)
    }

    @Test func aCreateCutShortBeforeItsHeaderOpensEmpty() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("o.outbox")
        try Data(SyncOutbox.header().prefix(5)).write(to: URL(fileURLWithPath: path))
        let outbox = try SyncOutbox.open(path: path)
        #expect(outbox.pending.isEmpty)
        try outbox.append(everyKind[0])
        outbox.close()
        #expect(try SyncOutbox.open(path: path).pending == [everyKind[0]])
    }

    @Test func aSecondOpenIsRefusedWhileTheFirstHoldsTheOutbox() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("o.outbox")
        let first = try SyncOutbox.open(path: path)
        #expect((#expect(throws: EventLogError.self) { try SyncOutbox.open(path: path) })?.code == .logInUse)
        first.close()
        _ = try SyncOutbox.open(path: path)
    }

    @Test func aBatchIsPendingOnceAndOnlyPendingBatchesAreNoted() throws {
        let dir = TemporaryDirectory()
        let outbox = try SyncOutbox.open(path: dir.file("o.outbox"))
        try outbox.append(everyKind[0])
        #expect((#expect(throws: EventLogError.self) { try outbox.append(everyKind[0]) })?.code == .invalidEvent)
        try outbox.append(everyKind[1])
        let outOfOrder = SyncOutbox.Attempt(group: UUID(), afterSeq: 1, plan: [entry(everyKind[1], .satisfied)])
        #expect((#expect(throws: EventLogError.self) { try outbox.noteAttempt(outOfOrder) })?.code == .invalidEvent)
        let unknown = SyncLedger.Entry(batchID: UUID(), outcome: .satisfied, titleSeq: nil)
        #expect((#expect(throws: EventLogError.self) { try outbox.markDone([unknown]) })?.code == .invalidEvent)
        outbox.close()
        #expect((#expect(throws: EventLogError.self) { try outbox.append(everyKind[2]) })?.code == .closed)
    }

    @Test func manyCommandsAreAppendedInOneWriteAndReadBackInOrder() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("o.outbox")
        do {
            let outbox = try SyncOutbox.open(path: path)
            try outbox.append(everyKind[0])
            try outbox.append(contentsOf: Array(everyKind.dropFirst()))
            #expect((#expect(throws: EventLogError.self) { try outbox.append(contentsOf: [everyKind[2]]) })?.code == .invalidEvent)
            let fresh = SyncCommand(.remove(id: x))
            #expect((#expect(throws: EventLogError.self) { try outbox.append(contentsOf: [fresh, fresh]) })?.code == .invalidEvent)
            outbox.close()
        }
        #expect(try SyncOutbox.open(path: path).pending == everyKind)
    }

    @Test func aBatchOfCommandsTornByACrashLeavesNoneOfThem() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("o.outbox")
        var end = 0
        do {
            let outbox = try SyncOutbox.open(path: path)
            try outbox.append(everyKind[0])
            end = readFile(path).count
            try outbox.append(contentsOf: Array(everyKind[1...4]))
            outbox.close()
        }
        let whole = readFile(path)
        for cut in stride(from: end + 1, to: whole.count, by: 7) {
            let torn = dir.file("torn-\(cut)")
            try Data(whole[..<cut]).write(to: URL(fileURLWithPath: torn))
            #expect(try SyncOutbox.open(path: torn).pending == [everyKind[0]], "cut at \(cut)")
        }
        #expect(try SyncOutbox.open(path: path).pending == Array(everyKind[0...4]))
    }

    private func entry(_ command: SyncCommand, _ outcome: SyncLedger.Outcome, titleSeq: UInt64? = nil) -> SyncLedger.Entry {
        SyncLedger.Entry(batchID: command.batchID, outcome: outcome, titleSeq: titleSeq)
    }

    private func readFile(_ path: String) -> [UInt8] { Array(FileManager.default.contents(atPath: path) ?? Data()) }
}
