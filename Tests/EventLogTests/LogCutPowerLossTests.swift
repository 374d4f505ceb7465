import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// The power-loss model over a cut (`LogCut`, and `LogWriter.cutHistory` of
/// an open log): the process crashes before
/// each of the cut's file operations in turn (writing the archive, its sync,
/// its link, the directory sync, writing the new log, its sync, the rename
/// over the log, the directory sync), and then the power goes: unsynced bytes
/// are dropped, torn or reordered, and the directory keeps the changes up to
/// its last sync and any number of the later ones, in order. Whatever is left
/// at the log's path opens and is the old log (every record) or the new
/// based one (every record from the cut on, continuing the chain), and with
/// the new one an archive is there, whole, ending where the base says.
@Suite("Power loss during a cut")
struct LogCutPowerLossTests {
    static let soak = ProcessInfo.processInfo.environment["LABELSTORE_SOAK"] != nil
    static let lossesPerStep = soak ? 40 : 6

    /// A synced log of `count` records at `path`; returns its records and its bytes. In `format` 4,
    /// appends of 25 records: batch frames of seqs 1…25, 26…50, 51…75, …
    func makeLog(_ path: String, count: Int, format: UInt16 = LogFormat.currentVersion) throws -> ([EventRecord], [UInt8]) {
        var options = LogWriter.Options(createIfMissing: true)
        options.newLogFormat = format
        let writer = try LogWriter.open(path: path, options: options)
        let perAppend = format == LogFormat.batchVersion ? 25 : 1
        var records: [EventRecord] = []
        for start in stride(from: 0, to: count, by: perAppend) {
            records += try writer.append(
                (start..<min(start + perAppend, count)).map { i in
                    LogEntry(.added(id: LabelID(), title: "label \(i) " + String(repeating: "x", count: i % 40), isEnabled: true, index: 0))
                })
        }
        writer.close()
        return (records, Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    /// `open`: the cut of a log a writer holds open (`LogWriter.cutHistory`),
    /// else of a closed log (`LogCut.cut`).
    @Test(arguments: [true, false], [false, true])
    func aCutInterruptedByAPowerLossAtAnyStepLeavesTheOldLogOrTheNewLayout(archiving: Bool, open: Bool) throws {
        try powerLossDuringCut(archiving: archiving, open: open, format: LogFormat.currentVersion)
    }

    /// A cut of a closed format 4 log through seq 60, inside the batch frame of 51…75: the frame is
    /// split and every kept frame after it chained again, with the same outcomes.
    @Test(arguments: [true, false])
    func aCutThatSplitsABatchFrameInterruptedByAPowerLossLeavesTheOldLogOrTheNewLayout(archiving: Bool) throws {
        try powerLossDuringCut(archiving: archiving, open: false, format: LogFormat.batchVersion)
    }

    func powerLossDuringCut(archiving: Bool, open: Bool, format: UInt16) throws {
        var rng = SeededGenerator(seed: (archiving ? 41 : 42) + (open ? 2 : 0) + (format == LogFormat.batchVersion ? 4 : 0))
        var newLayouts = 0
        var oldLogs = 0
        var step = 1
        while true {
            let dir = TemporaryDirectory()
            let path = dir.file("cut.labellog")
            let archivePath = dir.file("cut.1-60.labellog")
            let (records, bytes) = try makeLog(path, count: 150, format: format)
            let fs = FaultyFileSystem(performsRealSyncs: false)
            var failure: (any Error)?
            if open {
                let writer = try LogWriter.open(path: path, options: .init(fileSystem: fs))
                fs.armCrash(beforeMutatingCall: step)
                do {
                    _ = try writer.cutHistory(through: 60, archiveTo: archiving ? archivePath : nil, now: .now(), image: { [1, 2, 3] })
                } catch {
                    failure = error
                }
                writer.close()
            } else {
                fs.armCrash(beforeMutatingCall: step)
                do {
                    // A lock wait as a writer's open has by default: a child process another test forks
                    // holds a copy of the log's descriptor (and so its lock) until it execs.
                    _ = try LogCut.cut(
                        logPath: path, through: 60, archiveTo: archiving ? archivePath : nil, now: .now(), lockWait: .seconds(1),
                        begin: { _ in }, visitingCut: nil, image: { [1, 2, 3] }, fileSystem: fs)
                } catch { failure = error }
            }
            let completed = !fs.hasCrashed  // past the cut's last file operation: the loss comes after it
            if completed, let failure {
                // Only the crash may stop the cut: any other failure is a finding, not a step.
                Issue.record("step \(step): the cut failed without the crash: \(failure)")
                break
            }
            // Every number of the name changes since the last directory sync a
            // loss may keep, in turn (not drawn at random, so each step meets
            // every outcome it can have), with a random loss of unsynced bytes.
            let pending = fs.pendingNameChanges
            for round in 0..<max(Self.lossesPerStep, pending + 1) {
                let kept = round % (pending + 1)
                let names = fs.namesAfterPowerLoss([path: FileHistory(contents: bytes)], keeping: kept)
                let loss = FaultyFileSystem.Loss.allCases.randomElement(using: &rng)!
                for name in [path, archivePath] {
                    try? FileManager.default.removeItem(atPath: name)
                    if let file = names[name] { writeBytes(name, file.imageAfterPowerLoss(loss, using: &rng)) }
                }
                let what = "step \(step)\(completed ? " (completed)" : ""), \(kept) of \(pending) name changes kept, \(loss)"
                let (read, report) = try LogReader.readAll(path: path)
                #expect(report.damage == nil, "\(what): the log at the path is whole")
                let header = try LogReader(path: path).header
                if header.firstSeq == 1 {
                    #expect(!completed, "\(what): a finished cut has synced the directory after its rename")
                    oldLogs += 1
                    #expect(read == records, "\(what): the old log keeps every record")
                } else {
                    newLayouts += 1
                    #expect(header.firstSeq == 61 && read == Array(records[60...]), "\(what): the new log holds seqs 61…150")
                    #expect(header.base?.lastCutSeq == 60)
                    if archiving {
                        let (archived, archiveReport) = try LogReader.readAll(path: archivePath)
                        #expect(archived == Array(records[..<60]) && archiveReport.damage == nil, "\(what): the archive is whole")
                        let archive = try LogReader(path: archivePath)
                        while try archive.next() != nil {}
                        #expect(archive.lastPosition?.checksum == header.previousChecksum, "\(what): the archive joins the log")
                    }
                }
            }
            if completed { break }
            step += 1
        }
        #expect(step > 6, "the cut has its file operations: \(step - 1)")
        #expect(oldLogs > 0 && newLayouts > 0, "both outcomes were met: \(oldLogs) old, \(newLayouts) new")
    }
}
