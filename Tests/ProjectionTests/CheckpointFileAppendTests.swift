import Dispatch
import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// `LOG.checkpoints` format version 4 on is append-only (docs/SNAPSHOTS.md,
/// "Checkpoints"): on seeded random histories, the file an update appends to
/// is byte for byte the file built from seq 1, every checkpoint a reader takes
/// is the fold of the log up to its seq, and a torn tail, a flipped bit,
/// another log's file, a log cut and written again under it, an older version
/// and two updaters at once change nothing but which checkpoint is used.
@Suite struct CheckpointFileAppendTests {
    let helpers = SnapshotStoreTests()
    static let interval: UInt64 = 37

    /// A log of `writes` random records at `dir/labels.log`.
    func makeLog(in dir: String, writes: Int, seed: UInt64) throws -> String {
        let path = dir + "/labels.log"
        let store = try LabelStore.open(path: path, options: helpers.options())
        defer { store.close() }
        try helpers.write(writes, to: store, seed: seed)
        return path
    }

    func append(_ writes: Int, to path: String, seed: UInt64) throws {
        let store = try LabelStore.open(path: path, options: helpers.options(create: false))
        defer { store.close() }
        try helpers.write(writes, to: store, seed: seed)
    }

    func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
    func write(_ bytes: [UInt8], to path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }

    /// The bytes a rebuild from seq 1 writes (the file at `path` is rebuilt in place).
    func rebuilt(_ logPath: String, interval: UInt64 = interval) throws -> [UInt8] {
        _ = try CheckpointFile.update(logPath: logPath, rebuild: true, interval: interval)
        return try bytes(CheckpointFile.path(for: logPath))
    }

    /// The checkpoints a reader takes at a sample of seqs, and those that are not the fold of the log up to their seq.
    func takenCheckpoints(_ logPath: String) throws -> (taken: [UInt64], wrong: [String]) {
        let reader = try LogReader(path: logPath)
        let (all, _) = try LogReader.readAll(path: logPath)
        guard let directory = CheckpointFile.load(for: reader).directory else { return ([], []) }
        var taken: [UInt64] = []
        var wrong: [String] = []
        for seq in Array(stride(from: UInt64(0), through: UInt64(all.count), by: 29)) + [UInt64.max] {
            guard let checkpoint = CheckpointFile.checkpoint(atOrBefore: seq, in: directory, reader: reader).checkpoint else { continue }
            let at = checkpoint.position.seq
            let fold = try LabelList(replaying: all.prefix(Int(at)))
            if at > seq || checkpoint.list != fold {
                wrong.append("at or before seq \(seq): the checkpoint at seq \(at) is not the fold")
            }
            taken.append(at)
        }
        return (taken, wrong)
    }

    /// Every checkpoint a reader takes is the fold of the log up to its seq; returns the seqs taken.
    @discardableResult
    func expectCheckpointsAreTheFold(_ logPath: String, _ comment: String) throws -> [UInt64] {
        let (taken, wrong) = try takenCheckpoints(logPath)
        #expect(wrong == [], "\(comment)")
        return taken
    }

    @Test(arguments: [61, 62] as [UInt64])
    func updatesOnlyAppendAndTheFileIsTheOneBuiltFromSeqOne(seed: UInt64) throws {
        try helpers.withTemporaryDirectory { dir in
            let path = try makeLog(in: dir, writes: 150, seed: seed)
            let file = CheckpointFile.path(for: path)
            var before: [UInt8] = []
            var rng = SeededGenerator(seed: seed)
            for round in 0..<5 {
                let update = try CheckpointFile.update(logPath: path, interval: Self.interval)
                let after = try bytes(file)
                #expect(Array(after.prefix(before.count)) == before, "round \(round): the bytes written before are unchanged")
                #expect(update.byteCount == after.count)
                let lastSeq = UInt64(try LogReader.readAll(path: path).records.count)
                #expect(update.seqs == Array(stride(from: Self.interval, through: lastSeq, by: Int(Self.interval))))
                if round > 0 { #expect(update.extendedFrom != nil, "round \(round)") }
                try expectCheckpointsAreTheFold(path, "round \(round)")
                before = after
                try append(Int.random(in: 20...120, using: &rng), to: path, seed: seed &+ UInt64(round))
            }
            _ = try CheckpointFile.update(logPath: path, interval: Self.interval)
            let appended = try bytes(file)
            #expect(try rebuilt(path) == appended, "appended over five updates = built from seq 1")
        }
    }

    @Test func aCrashMidAppendLeavesWholeCheckpointsAndTheNextUpdateFinishesTheFile() throws {
        try helpers.withTemporaryDirectory { dir in
            let path = try makeLog(in: dir, writes: 160, seed: 71)
            let file = CheckpointFile.path(for: path)
            _ = try CheckpointFile.update(logPath: path, interval: Self.interval)
            let whole = try bytes(file)
            let directory = try #require(CheckpointFile.load(for: try LogReader(path: path)).directory)
            let last = try #require(directory.entries.last)
            // The append wrote the removal block before the checkpoint (when labels were removed meanwhile) and both entries last.
            let block = directory.removals.last.flatMap { $0.seq == last.seq ? $0 : nil }
            #expect(block != nil, "labels were removed before the last checkpoint")
            let start = block?.start ?? last.start
            // Every byte of the entries and the removal block, then a sample of the checkpoint's bytes.
            let cuts =
                Array(start..<last.offset + 8)
                + Array(stride(from: last.offset + 8, to: whole.count, by: max(1, (whole.count - start) / 60)))
            for cut in cuts {
                // A crash mid-append: the entries are written last, so they are still zero; the blocks' bytes are partly there.
                var crashed = whole.prefix(cut).map { $0 }
                let entries = [block?.start, last.start].compactMap { $0 }.flatMap { $0..<($0 + 40) }
                for k in entries where k < cut { crashed[k] = 0 }
                // The same bytes cut without zeroing the entry: a file cut short (reported as its tail).
                for (kind, torn) in [("crash", crashed), ("cut", Array(whole.prefix(cut)))] {
                    try write(torn, to: file)
                    let directory = try #require(CheckpointFile.load(for: try LogReader(path: path)).directory, "\(kind) at \(cut)")
                    #expect(directory.entries.map(\.seq) == [37, 74, 111], "\(kind) at \(cut)")
                    // A file cut at a block's end is not torn: it ends with a removal block no checkpoint follows yet.
                    #expect(
                        (directory.tail == nil) == (kind == "crash" || cut == start || cut == last.start),
                        "\(kind) at \(cut): \(String(describing: directory.tail))")
                    #expect(try expectCheckpointsAreTheFold(path, "\(kind) at \(cut)").max() == 111)
                    let update = try CheckpointFile.update(logPath: path, interval: Self.interval)
                    #expect(update.extendedFrom == 111, "\(kind) at \(cut)")
                    #expect(try bytes(file) == whole, "\(kind) at \(cut): the next update cuts the tail and appends again")
                }
            }
        }
    }

    @Test func flippedBitsAreCaughtAndNeverGiveAnotherList() throws {
        try helpers.withTemporaryDirectory { dir in
            let path = try makeLog(in: dir, writes: 200, seed: 81)
            let file = CheckpointFile.path(for: path)
            _ = try CheckpointFile.update(logPath: path, interval: Self.interval)
            let whole = try bytes(file)
            var rng = SeededGenerator(seed: 82)
            let offsets = [3, 9, 20, 40, 44, 48, 52, 60, 70, 84] + (0..<40).map { _ in Int.random(in: 0..<whole.count, using: &rng) }
            for offset in offsets {
                var flipped = whole
                flipped[offset] ^= UInt8(1) << UInt8.random(in: 0...7, using: &rng)
                try write(flipped, to: file)
                try expectCheckpointsAreTheFold(path, "bit flipped at \(offset)")
                _ = try CheckpointFile.update(logPath: path, interval: Self.interval)
                try expectCheckpointsAreTheFold(path, "updated after the bit flipped at \(offset)")
                let directory = CheckpointFile.load(for: try LogReader(path: path)).directory
                #expect(directory?.entries.last?.seq == 185, "bit flipped at \(offset): the update brings the file up to date")
            }
        }
    }

    @Test func anotherLogsFileIsIgnoredAndTheUpdateRewritesIt() throws {
        try helpers.withTemporaryDirectory { dir in
            let path = try makeLog(in: dir, writes: 120, seed: 91)
            try FileManager.default.createDirectory(atPath: dir + "/other", withIntermediateDirectories: false)
            let other = try makeLog(in: dir + "/other", writes: 140, seed: 92)
            _ = try CheckpointFile.update(logPath: other, interval: Self.interval)
            try FileManager.default.copyItem(atPath: CheckpointFile.path(for: other), toPath: CheckpointFile.path(for: path))
            guard case .ignored(let problem) = CheckpointFile.load(for: try LogReader(path: path)) else {
                Issue.record("another log's checkpoints were not ignored")
                return
            }
            #expect(problem.reason.contains("another log"))
            let update = try CheckpointFile.update(logPath: path, interval: Self.interval)
            #expect(update.extendedFrom == nil && update.seqs == [37, 74, 111])
            let appended = try bytes(CheckpointFile.path(for: path))
            #expect(try rebuilt(path) == appended)
            try expectCheckpointsAreTheFold(path, "rewritten")
        }
    }

    @Test(arguments: [100, 40, 20] as [UInt64])
    func aLogCutAndWrittenAgainDropsTheCheckpointsPastItsHistory(keep: UInt64) throws {
        try helpers.withTemporaryDirectory { dir in
            let path = try makeLog(in: dir, writes: 200, seed: 101)
            _ = try CheckpointFile.update(logPath: path, interval: Self.interval)
            let writer = try LogWriter.open(path: path)
            _ = try writer.discardRecords(after: keep)
            writer.close()
            try append(150, to: path, seed: 102)
            // Readers never take a checkpoint of the old history.
            try expectCheckpointsAreTheFold(path, "cut at \(keep)")
            let update = try CheckpointFile.update(logPath: path, interval: Self.interval)
            #expect(update.extendedFrom == (keep >= 37 ? keep / 37 * 37 : nil), "cut at \(keep)")
            #expect(update.dropped.contains { $0.reason.contains("history the log does not hold") }, "cut at \(keep)")
            let appended = try bytes(CheckpointFile.path(for: path))
            #expect(try rebuilt(path) == appended, "cut at \(keep): the file is the one built from seq 1")
        }
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt16])
    func anOlderVersionIsReportedAndRewrittenAsTheCurrentOne(version: UInt16) throws {
        try helpers.withTemporaryDirectory { dir in
            let path = try makeLog(in: dir, writes: 120, seed: 111)
            let file = CheckpointFile.path(for: path)
            _ = try CheckpointFile.update(logPath: path, interval: Self.interval)
            let current = try bytes(file)
            // The header an older build wrote (its checksum valid), before checkpoints this build does not read.
            var old = current
            old[8] = UInt8(version)
            old[9] = 0
            // Versions 1–3 had a 48-byte header, its checksum at byte 44; version 4 has this one's (uncompressed titles).
            let checksumAt = version == 4 ? 52 : 44
            let crc = CRC32C.checksum(old[0..<checksumAt])
            for k in 0..<4 { old[checksumAt + k] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(k))) }
            try write(old, to: file)
            guard case .ignored(let problem) = CheckpointFile.load(for: try LogReader(path: path)) else {
                Issue.record("a version-\(version) file was not reported")
                return
            }
            #expect(problem.reason.contains("format version \(version), which this build no longer reads") && problem.offset == 8)
            let update = try CheckpointFile.update(logPath: path, interval: Self.interval)
            #expect(update.extendedFrom == nil && update.seqs == [37, 74, 111])
            #expect(try bytes(file) == current, "rewritten as version \(CheckpointFile.formatVersion)")
        }
    }

    @Test func updatersAtOnceAndAReaderMeanwhileNeverSeeOrLeaveADamagedFile() throws {
        try helpers.withTemporaryDirectory { dir in
            let path = try makeLog(in: dir, writes: 400, seed: 121)
            let failures = Locked<[String]>([])
            for round in 0..<3 {
                // Four updaters and a reader, at once. Two updaters use another interval, so each of their updates
                // rewrites the file from seq 1 while the others append: only the lock keeps them apart.
                let done = DispatchGroup()
                for k in 0..<5 {
                    done.enter()
                    // Threads of their own (concurrentPerform would run as many at once as there are cores).
                    Thread {
                        defer { done.leave() }
                        do {
                            for _ in 0..<6 {
                                if k == 4 {
                                    let wrong = try takenCheckpoints(path).wrong
                                    failures.withLock { $0 += wrong.map { "round \(round), read meanwhile: \($0)" } }
                                } else {
                                    _ = try CheckpointFile.update(logPath: path, rebuild: k == 3, interval: k % 2 == 0 ? 37 : 41)
                                }
                            }
                        } catch {
                            failures.withLock { $0.append("round \(round), \(k): \(error)") }
                        }
                    }.start()
                }
                done.wait()
                let directory = try #require(CheckpointFile.load(for: try LogReader(path: path)).directory, "round \(round)")
                let lastSeq = UInt64(try LogReader.readAll(path: path).records.count)
                let interval = directory.interval
                #expect(directory.tail == nil && directory.entries.last?.seq == lastSeq / interval * interval, "round \(round)")
                let written = try bytes(CheckpointFile.path(for: path))
                #expect(try rebuilt(path, interval: interval) == written, "round \(round): the file is the one a rebuild writes")
                try append(90, to: path, seed: 122 &+ UInt64(round))
            }
            #expect(failures.withLock { $0 } == [])
        }
    }

    @Test func anUpdateOfTheHistoryFilesRemovesTheTemporariesKilledWritersLeft() throws {
        try helpers.withTemporaryDirectory { dir in
            let path = try makeLog(in: dir, writes: 50, seed: 131)
            let exited = Process()
            exited.executableURL = URL(fileURLWithPath: "/bin/sh")
            exited.arguments = ["-c", "exit 0"]
            try exited.run()
            exited.waitUntilExit()
            let dead = exited.processIdentifier
            let own = ProcessInfo.processInfo.processIdentifier
            let stale = [HistoryIndexFile.path(for: path) + ".tmp-\(dead)-1", CheckpointFile.path(for: path) + ".tmp-\(dead)-2"]
            let live = [HistoryIndexFile.path(for: path) + ".tmp-\(own)-3", CheckpointFile.path(for: path) + ".tmp-\(own)-4"]
            for file in stale + live { #expect(FileManager.default.createFile(atPath: file, contents: Data([1]))) }
            let store = try LabelStore.open(path: path, options: helpers.options(create: false))
            try store.updateHistoryFiles()
            store.close()
            for file in stale { #expect(!FileManager.default.fileExists(atPath: file), "\(file) was kept") }
            for file in live { #expect(FileManager.default.fileExists(atPath: file), "\(file) was removed") }
        }
    }
}
