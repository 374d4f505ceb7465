import EventLog
import Foundation
import Testing

@testable import LabelBenchKit

/// The long-history workloads' harness: the command line, the catalog, the
/// child processes and their resource usage, the output check, the disk
/// probe's arithmetic, the checkpoint header and the seqs asked for.
@Suite struct HistoryBenchTests {
    private func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.path + "/labelbench-tests-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func theLabelreplayOptionNamesTheBinary() throws {
        guard case .run(let settings) = try Arguments.parse(["--labelreplay", "/opt/bin/labelreplay", "--quick"]) else {
            Issue.record("expected a run")
            return
        }
        #expect(settings.labelreplay == "/opt/bin/labelreplay")
        guard case .run(let defaults) = try Arguments.parse([]) else {
            Issue.record("expected a run")
            return
        }
        #expect(defaults.labelreplay == nil)
        #expect(throws: BenchError.self) { try Arguments.parse(["--labelreplay"]) }
        #expect(throws: BenchError.self) { try Arguments.parse(["--labelreplay", ""]) }
        #expect(Arguments.usage.contains("--labelreplay PATH") && Arguments.usage.contains("state-at-"))
    }

    @Test func theCatalogListsTheHistoryWorkloadsBySize() {
        var settings = BenchSettings()
        let ids = WorkloadCatalog.workloads(for: settings).map(\.id)
        #expect(ids.contains("batch-append-disk") && ids.contains("state-at-1m-worst") && ids.contains("cli-import-memory"))
        settings.filters = ["cli"]
        #expect(
            WorkloadCatalog.workloads(for: settings).map(\.id) == [
                "cli-verify-head-1m", "cli-verify-head-quick-1m", "cli-show", "cli-diff", "cli-trace", "cli-show-current", "cli-log-label",
                "cli-log-actor",
                "cli-stats", "cli-export",
                "cli-import", "cli-import-memory"
            ])
        settings.filters = ["state-at"]
        settings.quick = true
        settings.big = true
        #expect(
            WorkloadCatalog.workloads(for: settings).map(\.id) == [
                "state-at-200k-early", "state-at-200k-middle", "state-at-200k-late", "state-at-200k-worst", "state-at-200k-after-open",
                "state-at-10m-early", "state-at-10m-middle", "state-at-10m-late", "state-at-10m-worst", "state-at-10m-after-open"
            ])
    }

    @Test func theSeqsAskedForFallEarlyMiddleLateAndJustBeforeTheLastCheckpoint() {
        func seq(_ p: StateAtSeqWorkload.Position, _ n: Int) -> UInt64 { StateAtSeqWorkload.seq(p, eventCount: n, interval: 65_536) }
        #expect(seq(.early, 1_000_000) == 100_000 && seq(.middle, 1_000_000) == 500_000 && seq(.late, 1_000_000) == 999_000)
        #expect(seq(.worst, 1_000_000) == 983_039)
        // A history ending on a checkpoint: the one before it.
        #expect(seq(.worst, 131_072) == 65_535)
    }

    @Test func theCheckpointFileGivesItsIntervalAndCountsItsEntries() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Format 5 (docs/SNAPSHOTS.md): a 56-byte header (u16 version at 8, u64 interval at 32), then blocks,
        // each behind a 40-byte entry: magic `CKPT` (flags bit 0: a delta) or `RMVD`, u64 length at 16.
        var bytes = Array("LABELCKP".utf8) + [UInt8](repeating: 0, count: 48)
        bytes[8] = 5
        bytes[34] = 0x01  // interval 65,536
        func entry(_ magic: String, delta: Bool = false, length: UInt8) -> [UInt8] {
            var entry = Array(magic.utf8) + [UInt8](repeating: 0, count: 36)
            if delta { entry[4] = 1 }
            entry[16] = length
            return entry + [UInt8](repeating: 0xAB, count: Int(length))
        }
        let blocks =
            entry("CKPT", length: 80) + entry("RMVD", length: 9) + entry("CKPT", delta: true, length: 100)
            + entry("CKPT", delta: true, length: 90)
        // An append that did not finish: zeros where the next entry would be.
        try Data(bytes + blocks + [UInt8](repeating: 0, count: 20)).write(to: URL(fileURLWithPath: directory + "/a.checkpoints"))
        let header = try HistoryFixture.checkpointHeader(path: directory + "/a.checkpoints")
        #expect(header.interval == 65_536 && header.count == 3 && header.full == 1)
        bytes[8] = 4  // an older format is not read
        try Data(bytes).write(to: URL(fileURLWithPath: directory + "/b.checkpoints"))
        #expect(throws: BenchError.self) { try HistoryFixture.checkpointHeader(path: directory + "/b.checkpoints") }
    }

    @Test func theOutputComparisonFailsOnADifference() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let a = directory + "/a", b = directory + "/b", c = directory + "/c", d = directory + "/d"
        try Data("same bytes\n".utf8).write(to: URL(fileURLWithPath: a))
        try Data("same bytes\n".utf8).write(to: URL(fileURLWithPath: b))
        try Data("same bytez\n".utf8).write(to: URL(fileURLWithPath: c))
        try Data("same bytes\nmore\n".utf8).write(to: URL(fileURLWithPath: d))
        #expect(try OutputComparison.requireEqual(a, b, what: "show") == 11)
        #expect { try OutputComparison.requireEqual(a, c, what: "show") } throws: { error in
            "\(error)".contains("first difference at byte 9")
        }
        #expect(throws: BenchError.self) { try OutputComparison.requireEqual(a, d, what: "show") }
    }

    @Test func aChildProcessReportsItsStatusOutputAndPeakResidentSet() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outcome = try ChildProcess.run(
            "/bin/sh", ["-c", "printf abc; printf oops >&2; exit 3"], outputPath: directory + "/out", errorPath: directory + "/err")
        #expect(outcome.status == 3 && !outcome.signaled)
        #expect(try String(contentsOfFile: directory + "/out", encoding: .utf8) == "abc")
        #expect(try String(contentsOfFile: directory + "/err", encoding: .utf8) == "oops")
        #expect(outcome.maxResidentBytes > 0)
        let killed = try ChildProcess.run("/bin/sh", ["-c", "kill -9 $$"], outputPath: directory + "/out", errorPath: directory + "/err")
        #expect(killed.signaled && killed.status == 128 + 9)
        #expect(throws: BenchError.self) {
            try ChildProcess.run(directory + "/missing", [], outputPath: directory + "/out", errorPath: directory + "/err")
        }
    }

    @Test func waitStatusesAndMaxRSSAreDecoded() {
        #expect(ChildProcess.decode(waitStatus: 0) == (0, false))
        #expect(ChildProcess.decode(waitStatus: 3 << 8) == (3, false))
        #expect(ChildProcess.decode(waitStatus: 15) == (143, true))
        #if canImport(Darwin)
        #expect(ChildProcess.residentBytes(maxRSS: 4096) == 4096)
        #else
        #expect(ChildProcess.residentBytes(maxRSS: 4096) == 4096 * 1024)
        #endif
    }

    @Test func theRusageProbesReportRoundTrips() {
        let report = RusageProbe.Report(
            outcome: .init(status: 0, signaled: false, elapsed: .nanoseconds(1_500_000_000), maxResidentBytes: 58_000_000),
            floorBytes: 9_000_000)
        #expect(RusageProbe.line(report) == "0 0 1500000000 58000000 9000000")
        #expect(RusageProbe.parse(RusageProbe.line(report) + "\n") == report)
        #expect(RusageProbe.parse("0 0 15 58") == nil)
        #expect(RusageProbe.parse("0 2 15 58 9") == nil)
        #expect(RusageProbe.parse("x 0 15 58 9") == nil)
    }

    @Test func theDiskProbesArithmetic() throws {
        #expect(DiskProbe.batchByteCounts(fileSizes: [64, 164, 364, 365]) == [100, 200, 1])
        #expect(DiskProbe.batchByteCounts(fileSizes: [64]).isEmpty)
        #expect(DiskProbe.eventsPerSecond(events: 1_000, elapsed: .milliseconds(500)) == 2_000)
        #expect(DiskProbe.shareOfLimit(ours: 80, limit: 100) == 0.8)
        #expect(DiskProbe.shareOfLimit(ours: 80, limit: 0).isNaN)
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try DiskProbe.run(path: directory + "/probe", batches: [100, 4_000, 20])
        #expect(!FileManager.default.fileExists(atPath: directory + "/probe"))
    }

    @Test func aLiveLimitStopsTheListGrowing() {
        var stream = EventStream(seed: 5, liveLimit: 300)
        var live = 0, adds = 0
        for entry in stream.next(20_000) {
            switch entry.event.kind {
            case .added:
                live += 1
                adds += 1
            case .removed: live -= 1
            default: break
            }
            #expect(live <= 300)
        }
        #expect(live >= 250 && adds > 1_000)
        #expect(EventStream(seed: 5).liveCount == 0)
    }

    @Test func theBuildCommandLineNamesTheRootPackage() {
        let root = LabelReplayBinary.rootPackage
        #expect(FileManager.default.fileExists(atPath: root + "/Package.swift"))
        #expect(FileManager.default.fileExists(atPath: root + "/Benchmarks/Package.swift"))
        #if os(Linux)
        #expect(
            LabelReplayBinary.buildArguments(root: "/r", showBinPath: true) == [
                "build", "-c", "release", "--package-path", "/r", "--product", "labelreplay", "--static-swift-stdlib",
                "--scratch-path", "/r/.build/static-release", "--show-bin-path"
            ])
        #else
        #expect(
            LabelReplayBinary.buildArguments(root: "/r", showBinPath: true) == [
                "build", "-c", "release", "--package-path", "/r", "--product", "labelreplay", "--scratch-path", "/r/.build",
                "--show-bin-path"
            ])
        #endif
    }
}
