#if Postgres
import EventLog
import Foundation
import LabelProjection
import LabelStorePostgres
import LabelStoreTestSupport
import Synchronization
import Testing

/// Archiving a server list (issue 27, item 3): `archive URL --before SEQ
/// --to FILE|DIR` writes the records before the cut to an archive file, then
/// in one transaction writes the base into the head row and deletes the rows
/// and checkpoints it replaces; hosts that open later start from the base,
/// with the same answers, heads and checks as before.
@Suite struct ServerArchiveTests {
    let server = PostgresTestServer.shared

    func open(_ location: PostgresLocation) throws -> PostgresEventLog {
        try PostgresEventLog(location: location, options: .init(createIfMissing: true, checkpointInterval: 64))
    }

    func scratchDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("server-archive-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A new list written by a store with `count` seeded random commands: its location, URL, log (close it) and store.
    func writtenList(_ count: Int, seed: UInt64) throws -> (
        location: PostgresLocation, url: String, log: PostgresEventLog, store: LabelStore
    ) {
        let location = server.location()
        let log = try open(location)
        let store = try LabelStore(storage: log)
        try ServerCheckpointTests().write(count, to: store, seed: seed)
        return (location, CLIOverServerTests.url(list: location.list), log, store)
    }

    func cli(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        try CLIOverServerTests.cli(arguments)
    }

    @Test func aListCutToAnArchiveAnswersAsBeforeFromItsBaseAndItsArchiveJoinsIt() throws {
        let (location, url, log, store) = try writtenList(300, seed: 21)
        defer { log.close() }
        store.waitForHistoryFiles()
        let snapshot = store.snapshot
        let head = try store.head
        let last = store.lastSeq
        try #require(last > 260)
        let seqs: [UInt64] = [120, 150, 151, 220, last]
        let states = try seqs.map { try store.state(atSeq: $0) }
        let commands = [
            ["show", url, "--at", "250"], ["head", url], ["log", url, "--from", "200", "--no-pager"], ["show", url, "--at", "100"],
            ["diff", url, "90", "260"], ["head", url, "--at", "140"], ["log", url, "--to", "20", "--no-pager"]
        ]
        let before = try commands.map { try cli($0) }
        for (arguments, run) in zip(commands, before) { #expect(run.status == 0, "\(arguments): \(run)") }

        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let dry = try cli(["archive", url, "--before", "151", "--to", directory, "--dry-run"])
        #expect(dry.status == 0 && dry.output.contains("would archive seqs 1…150"), "\(dry)")
        #expect(try server.psql("SELECT min(seq) FROM labelstore.records WHERE list = '\(location.list)'") == "1", "a dry run cuts nothing")
        let cut = try cli(["archive", url, "--before", "151", "--to", directory, "--json"])
        #expect(cut.status == 0 && cut.output.contains(#""first":1,"#) && cut.output.contains(#""last":150,"#), "\(cut)")
        let archive = "\(directory)/\(location.list).1-150.labellog"
        #expect(FileManager.default.fileExists(atPath: archive), "\(cut)")
        #expect(try cli(["verify", archive]).status == 0, "the archive is a log of its own")
        #expect(try server.psql("SELECT min(seq) FROM labelstore.records WHERE list = '\(location.list)'") == "151")
        #expect(try server.psql("SELECT count(*) FROM labelstore.checkpoints WHERE list = '\(location.list)' AND seq <= 150") == "0")
        #expect(try server.psql("SELECT base_seq FROM labelstore.lists WHERE list = '\(location.list)'") == "150")

        // A host that opens now starts from the base, with the same list, head and states from the cut on.
        let joining = try open(location)
        defer { joining.close() }
        #expect(joining.firstSeq == 151 && joining.base?.lastCutSeq == 150)
        #expect(try joining.read(from: 1, maxCount: 2).map(\.seq) == [151, 152], "a read from before the base starts at it")
        let joined = try LabelStore(storage: joining)
        #expect(joined.snapshot == snapshot)
        #expect(try joined.head == head, "the head is the same across the cut")
        for (seq, state) in zip(seqs.dropFirst(), states.dropFirst()) {
            #expect(try joined.state(atSeq: seq) == state, "seq \(seq)")
        }
        // Seq 120 is archived: answered from the archive file (LabelStore.history()), and refused,
        // naming the archive, while the file is gone.
        #expect(try joined.state(atSeq: seqs[0]) == states[0], "seq 120, from the archive")
        try FileManager.default.moveItem(atPath: archive, toPath: archive + ".away")
        let refused = try #require(throws: StoreError.self, "seq 120 is archived") { try joined.state(atSeq: 120) }
        #expect(refused.message.contains(archive), "\(refused)")
        try FileManager.default.moveItem(atPath: archive + ".away", toPath: archive)

        // The CLI answers as before: from the base, and from the archive for earlier seqs.
        let after = try commands.map { try cli($0) }
        for (index, arguments) in commands.enumerated() {
            #expect(after[index].status == 0, "\(arguments): \(after[index])")
            #expect(after[index].output == before[index].output, "\(arguments): the same output across the cut")
        }
        try joined.add("after the cut")
        #expect(try joined.head != head)
        let verified = try cli(["verify", url])
        #expect(verified.status == 0 && verified.output.contains("seq 151…\(last + 1)"), "\(verified)")
        #expect(verified.output.contains("the archive joins the log"), "verify checks the archive joins the list: \(verified)")
        let checked = try cli(["verify", url, "--head", before[1].output.trimmingCharacters(in: .whitespacesAndNewlines)])
        #expect(checked.status == 0, "the list extends the head kept before the cut: \(checked)")

        // The store opened before the cut still appends; its read of a seq cut meanwhile names the cut.
        try store.add("from the first host")
        do {
            _ = try log.read(from: 100, maxCount: 1)
            Issue.record("a read of a seq cut after the log opened returned")
        } catch {
            #expect(error.code == .seqGap && error.message.contains("were cut off the list"), "\(error)")
        }

        // An archive that does not join (another history's file at its path) fails verify, naming it.
        let saved = try Data(contentsOf: URL(fileURLWithPath: archive))
        try FileManager.default.removeItem(atPath: archive)
        let foreign = try LogWriter.open(path: archive, options: .init(createIfMissing: true))
        _ = try foreign.append([LogEntry(.added(id: LabelID(), title: "not this list", isEnabled: true, index: 0))])
        foreign.close()
        let mismatch = try cli(["verify", url])
        #expect(
            mismatch.status == 1 && mismatch.output.contains("does NOT join") && mismatch.errors.contains("not an archive of this log"),
            "\(mismatch)")
        try saved.write(to: URL(fileURLWithPath: archive))
        #expect(try cli(["verify", url]).status == 0)

        // Without the archive, seqs before the base are refused naming it.
        try FileManager.default.removeItem(atPath: archive)
        let missing = try cli(["show", url, "--at", "100"])
        #expect(missing.status == 1 && missing.errors.contains("seq 100 is archived in \(archive)"), "\(missing)")
        // A copy needs no archive: it is a based log of the same history, which names it.
        let copy = try cli(["copy", url, "\(directory)/copy.labellog"])
        #expect(copy.status == 0, "\(copy)")
        let copiedFirst = try LogReader(path: "\(directory)/copy.labellog").header.firstSeq
        #expect(copiedFirst == 151)
    }

    @Test func aListCutWithDeleteStartsFromItsBaseAndNamesTheDroppedSeqs() throws {
        let (location, url, log, store) = try writtenList(120, seed: 5)
        defer { log.close() }
        let snapshot = store.snapshot
        let refused = try cli(["archive", url, "--before", "61"])
        #expect(refused.status == 64 && refused.errors.contains("--to FILE"), "\(refused)")
        let dropped = try cli(["archive", url, "--before", "61", "--delete"])
        #expect(dropped.status == 0 && dropped.output.contains("dropped seqs 1…60"), "\(dropped)")
        let second = try cli(["archive", url, "--before", "81", "--delete"])
        #expect(second.status == 0 && second.output.contains("dropped seqs 61…80"), "a second cut continues from the first: \(second)")
        let joining = try open(location)
        defer { joining.close() }
        #expect(try LabelStore(storage: joining).snapshot == snapshot)
        let gone = try cli(["show", url, "--at", "70"])
        #expect(gone.status == 1 && gone.errors.contains("was dropped"), "\(gone)")
        let verified = try cli(["verify", url])
        #expect(verified.status == 0 && verified.output.contains("seqs 61…80 were dropped"), "\(verified)")
        let stats = try cli(["stats", url, "--json"])
        #expect(stats.status == 0 && stats.output.contains(#""archive":null"#) && stats.output.contains(#""dropped":true"#), "\(stats)")
        let early = try cli(["archive", url, "--before", "50", "--delete"])
        #expect(early.status == 1 && early.errors.contains("nothing is before seq 50"), "\(early)")
    }

    @Test func aCutListCopiesToABasedLogFileAndABasedFileToABasedList() throws {
        let (location, url, log, store) = try writtenList(120, seed: 6)
        defer { log.close() }
        let directory = try scratchDirectory()
        let head = try store.head
        #expect(try cli(["archive", url, "--before", "61", "--to", directory]).status == 0)
        // A backup of the cut list: a based log of the same history, the archive joining it.
        let file = directory + "/backup.labellog"
        let copied = try cli(["copy", url, file])
        #expect(copied.status == 0, "\(copied)")
        let header = try LogReader(path: file).header
        let reopened = try open(location)
        defer { reopened.close() }
        #expect(header.firstSeq == 61 && header.logID == reopened.checkpointHistoryID && header.previousChecksum == reopened.baseChainValue)
        let heads = try cli(["head", file, "--json"])
        #expect(heads.status == 0 && heads.output.contains(head.hash.hex), "\(heads)")
        let verified = try cli(["verify", file])
        #expect(verified.status == 0 && verified.output.contains("the archive joins the log"), "\(verified)")
        let opened = try LabelStore.open(path: file)
        #expect(opened.snapshot == store.snapshot)
        opened.close()
        // The based file into a new list: a based list of the same history, whose archive joins it.
        let target = CLIOverServerTests.url(list: server.location().list)
        let migrated = try cli(["copy", file, target])
        #expect(migrated.status == 0, "\(migrated)")
        let targetHead = try cli(["head", target, "--json"])
        #expect(targetHead.status == 0 && targetHead.output.contains(head.hash.hex), "\(targetHead)")
        let targetVerified = try cli(["verify", target])
        #expect(targetVerified.status == 0 && targetVerified.output.contains("joins"), "\(targetVerified)")
        let shown = (try cli(["show", target, "--at", "30", "--json"]), try cli(["show", url, "--at", "30", "--json"]))
        #expect(shown.0.status == 0 && shown.0.output == shown.1.output, "archived seqs read from the archive: \(shown)")
        // Again: nothing to copy; into a list of another history: refused, unchanged.
        let again = try cli(["copy", file, target, "--json"])
        #expect(again.status == 0 && again.output.contains(#""copied":0"#), "\(again)")
        let other = CLIOverServerTests.url(list: server.location().list)
        #expect(try cli(["init", other]).status == 0)
        let refused = try cli(["copy", file, other])
        #expect(refused.status == 1 && refused.errors.contains("another history"), "\(refused)")
    }

    @Test func aCutListExportedWithoutItsArchiveImportsAsABasedListAndABasedFile() throws {
        let (_, url, log, store) = try writtenList(120, seed: 8)
        defer { log.close() }
        let directory = try scratchDirectory()
        let head = try store.head
        #expect(try cli(["archive", url, "--before", "61", "--to", directory]).status == 0)
        let archive = try #require(try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasSuffix(".labellog") })
        try FileManager.default.moveItem(atPath: directory + "/" + archive, toPath: directory + "/away")
        // The export starts with the list's base; its records follow.
        let export = try cli(["export", url])
        #expect(
            export.status == 0 && export.output.hasPrefix(#"{"base":{"#) && export.errors.contains("is archived in"),
            "\(export.output.prefix(300)) \(export.errors)")
        let input = directory + "/list.jsonl"
        try export.output.write(toFile: input, atomically: false, encoding: .utf8)
        // Into a new list and into a file: based, with the list's head.
        let target = CLIOverServerTests.url(list: server.location().list)
        let file = directory + "/imported.labellog"
        for destination in [target, file] {
            let imported = try cli(["import", destination, input])
            #expect(imported.status == 0 && imported.output.contains("as seq 61…"), "\(destination): \(imported.output) \(imported.errors)")
            let heads = try cli(["head", destination, "--json"])
            #expect(heads.status == 0 && heads.output.contains(head.hash.hex), "\(destination): \(heads)")
        }
        #expect(try LogReader(path: file).header.firstSeq == 61)
        // The archive brought back joins both.
        try FileManager.default.moveItem(atPath: directory + "/away", toPath: directory + "/" + archive)
        for destination in [target, file] {
            let verified = try cli(["verify", destination])
            #expect(verified.status == 0 && verified.output.contains("joins"), "\(destination): \(verified)")
        }
        // Again, with --resume: nothing twice; into a list of another history: refused.
        let again = try cli(["import", target, input, "--resume"])
        #expect(again.status == 0 && again.output.contains("already at the end"), "\(again)")
        let other = CLIOverServerTests.url(list: server.location().list)
        #expect(try cli(["init", other]).status == 0)
        let refused = try cli(["import", other, input])
        #expect(refused.status == 1 && refused.errors.contains("another history than the input's"), "\(refused)")
    }

    @Test func appendsFromAnotherHostGoOnWhileTheListIsCutAndEveryRecordIsKept() throws {
        let (location, _, log, store) = try writtenList(400, seed: 31)
        defer { log.close() }
        let head = try store.head
        try #require(head.seq > 300)
        let cutter = try open(location)
        defer { cutter.close() }
        let written = Mutex(0)
        let writer = Thread {
            // Another host appends through its own store while the cut runs.
            guard let other = try? open(location), let otherStore = try? LabelStore(storage: other) else { return }
            defer { other.close() }
            for i in 0..<150 where (try? otherStore.add("during the cut \(i)")) != nil { written.withLock { $0 += 1 } }
        }
        writer.start()
        let report = try cutter.cutHistory(through: 300, archiveTo: nil)
        while written.withLock({ $0 }) < 150 && !writer.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        #expect(report.cut == 1...300)
        #expect(written.withLock { $0 } == 150, "every append from the other host landed")
        let joining = try open(location)
        defer { joining.close() }
        let joined = try LabelStore(storage: joining)
        #expect(joined.lastSeq == head.seq + 150)
        let proof = try joined.consistencyProof(from: head.seq)
        let newHead = try joined.head
        #expect(proof.old == head && proof.new == newHead, "the history extends the head kept before the cut")
        try proof.verify()
        #expect(try cli(["verify", CLIOverServerTests.url(list: location.list)]).status == 0)
    }

    @Test func aProcessKilledOnceTheArchiveIsWrittenLeavesTheListAndTheSameCommandFinishes() throws {
        let (location, url, log, _) = try writtenList(100, seed: 13)
        defer { log.close() }
        let head = try cli(["head", url])
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var environment = ProcessInfo.processInfo.environment
        environment["LABELSTORE_TEST_CUT_CRASH"] = "archive-written"
        let killed = try runCommand(
            try CLIOverServerTests.executable(), ["archive", url, "--before", "51", "--to", directory], environment: environment)
        #expect(killed.status == 99, "the process ends as kill -9 would, once the archive is linked: \(killed)")
        #expect(
            try server.psql(
                "SELECT base_seq || ',' || min(seq) FROM labelstore.lists JOIN labelstore.records USING (list) WHERE list = '\(location.list)' GROUP BY base_seq"
            ) == "0,1", "the list is as it was")
        #expect(try cli(["verify", url]).status == 0)
        let again = try cli(["archive", url, "--before", "51", "--to", directory])
        #expect(again.status == 0 && again.errors.contains("was already there") && again.output.contains("archived seqs 1…50"), "\(again)")
        #expect(try cli(["head", url]).output == head.output)
        #expect(try cli(["verify", "\(directory)/\(location.list).1-50.labellog"]).status == 0)
    }

    @Test func aCutStoppedBeforeItsTransactionLeavesTheListAndASecondRunKeepsItsArchive() throws {
        let (location, _, log, _) = try writtenList(80, seed: 9)
        defer { log.close() }
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let archive = "\(directory)/early.labellog"
        // The archive of seqs 1…40 is there, as a cut that stopped before its transaction left it.
        let reader = try open(location)
        defer { reader.close() }
        let writer = try ArchiveFileWriter(
            path: archive, logID: LabelID(reader.logID), createdAt: .now(), base: nil, previousChecksum: 0)
        for record in try reader.read(from: 1, maxCount: 40) { try writer.append(record) }
        try writer.finish()
        #expect(try server.psql("SELECT base_seq FROM labelstore.lists WHERE list = '\(location.list)'") == "0")
        let report = try reader.cutHistory(through: 40, archiveTo: archive)
        #expect(report.reusedArchive && report.cut == 1...40)
        // Another file at the name is refused, and nothing is cut.
        let other = "\(directory)/other.labellog"
        try Data("not a log".utf8).write(to: URL(fileURLWithPath: other))
        #expect(throws: EventLogError.self) { try reader.cutHistory(through: 60, archiveTo: other) }
        #expect(try server.psql("SELECT base_seq FROM labelstore.lists WHERE list = '\(location.list)'") == "40")
        #expect(throws: EventLogError.self, "a cut past the end") { try reader.cutHistory(through: 500, archiveTo: nil) }
    }
}
#endif
