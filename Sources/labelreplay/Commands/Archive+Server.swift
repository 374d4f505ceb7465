import EventLog
import Foundation

#if Postgres
import LabelStorePostgres
#endif

/// `archive URL --before SEQ|TIME (--to FILE|DIR | --delete) [--dry-run]`:
/// cuts a server list's earliest records off to an archive file on this
/// machine (or drops them); the list then starts from a base in its head row
/// (docs/POSTGRES.md, "Archiving a list").
extension Archive {
    static func runServer(_ text: String, arguments: ParsedArguments, console: Console) throws -> Int32 {
        guard let before = arguments.option("before") else { throw UsageError("archive needs --before SEQ or --before TIME") }
        let delete = arguments.flag("delete")
        if delete, arguments.option("to") != nil {
            throw UsageError("--to names where an archive goes: it cannot go with --delete")
        }
        guard delete || arguments.option("to") != nil else {
            throw UsageError(
                "archiving a server list needs --to FILE or --to DIR (where its records go, on this machine) or --delete (to drop them)")
        }
        #if Postgres
        let opened = try ServerStorage.open(LogLocation.resolve(text))
        guard let log = opened.storage as? PostgresEventLog else { preconditionFailure("a server list is a PostgresEventLog") }
        let display = opened.display
        let firstSeq = log.firstSeq
        let scan = RecordPager(storage: log, from: firstSeq)
        let lastCut = try lastCutSeq(before: before, arguments: arguments, path: display, firstSeq: firstSeq) { try scan.next() }
        let last = try log.refreshLastSeq()
        guard lastCut <= last else { throw Failure("\(display): cannot cut through seq \(lastCut): the list ends at seq \(last)") }
        let archive = try delete ? nil : serverArchivePath(arguments.option("to")!, list: opened.list, cut: firstSeq...lastCut)
        let progress = Progress("archiving \(display)", total: Int64(lastCut - firstSeq + 1), unit: "records", console: console)
        let dryRun = arguments.flag("dry-run")
        let result: Result
        if dryRun {
            // What would be cut: the records read and checked, nothing written.
            var low = Int64.max
            var high = Int64.min
            var bytes: Int64 = 0
            let pager = RecordPager(storage: log, from: firstSeq)
            while let record = try pager.next(), record.seq <= lastCut {
                low = min(low, record.timestamp.millisecondsSince1970)
                high = max(high, record.timestamp.millisecondsSince1970)
                bytes += Int64(try record.storedPayload().count)
                progress.update(Int64(record.seq - firstSeq + 1), detail: "seq \(record.seq)")
            }
            result = Result(
                path: display, archive: archive, dropped: archive == nil, dryRun: true, first: firstSeq, last: lastCut,
                records: lastCut - firstSeq + 1, bytes: bytes, firstTime: EventTimestamp(millisecondsSince1970: low).iso8601,
                lastTime: EventTimestamp(millisecondsSince1970: high).iso8601, firstSeq: lastCut + 1, keptRecords: last - lastCut,
                keptBytes: nil)
        } else {
            let outcome = Swift.Result { () throws(EventLogError) -> PostgresEventLog.CutReport in
                try log.cutHistory(through: lastCut, archiveTo: archive) { seq in
                    progress.update(Int64(seq - firstSeq + 1), detail: "seq \(seq)")
                }
            }
            if case .failure(let error) = outcome, error.code == .fileExists { throw Failure("\(archive ?? display): \(error.message)") }
            let report = try outcome.get()
            if report.reusedArchive, let archive {
                console.warning(
                    "\(archive): an archive of exactly these records was already there (an earlier cut stopped before it committed): it is kept"
                )
            }
            result = Result(
                path: display, archive: report.archivePath, dropped: report.archivePath == nil, dryRun: false,
                first: report.cut.lowerBound, last: report.cut.upperBound, records: UInt64(report.cut.count),
                bytes: report.cutBytes, firstTime: report.timeRange.lowerBound.iso8601, lastTime: report.timeRange.upperBound.iso8601,
                firstSeq: report.firstSeq, keptRecords: report.keptRecords, keptBytes: nil)
        }
        progress.finish()
        return try report(result, arguments: arguments, console: console)
        #else
        throw LogLocation.notBuilt(text)
        #endif
    }

    /// The archive file for `--to`: the path given, or `LIST.FIRST-LAST.labellog`
    /// in it when it is a directory; absolute (the list's base names it for every host).
    static func serverArchivePath(_ to: String, list: String, cut: ClosedRange<UInt64>) throws -> String {
        let absolute = to.hasPrefix("/") ? to : FileManager.default.currentDirectoryPath + "/" + to
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: absolute, isDirectory: &isDirectory), isDirectory.boolValue {
            let stem = list.map { $0 == "/" ? "_" : $0 }
            return (absolute.hasSuffix("/") ? absolute : absolute + "/") + "\(String(stem)).\(cut.lowerBound)-\(cut.upperBound).labellog"
        }
        let directory = SystemFile.directoryName(of: absolute)
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw Failure("\(directory): no such directory (--to names the archive file, or the directory it goes to)")
        }
        return absolute
    }
}

/// A storage's records one at a time from a seq, read in pages.
private final class RecordPager {
    private let storage: any EventStorage
    private var page: [EventRecord] = []
    private var index = 0
    private var nextSeq: UInt64

    init(storage: any EventStorage, from seq: UInt64) {
        self.storage = storage
        self.nextSeq = seq
    }

    /// The next record, or `nil` at the end.
    func next() throws -> EventRecord? {
        if index == page.count {
            page = try storage.read(from: nextSeq, maxCount: 4096)
            index = 0
            guard let last = page.last else { return nil }
            nextSeq = last.seq + 1
        }
        defer { index += 1 }
        return page[index]
    }
}
