import EventLog

/// Keeping a file log's history bounded: the records older than a retention
/// policy says move to an archive file (or are dropped), and the log starts
/// from a base (``cutHistory(path:through:archiveTo:now:)``).
extension LabelStore {
    /// How much history a file log keeps (``Options/retention``,
    /// ``applyRetention(path:_:now:)``). Everything else about the log is kept:
    /// the list, every label's identity and last state, and the history's head.
    public struct Retention: Sendable, Hashable {
        /// Which records stay in the log.
        public enum Keep: Sendable, Hashable {
            /// The newest `count` records.
            case lastRecords(UInt64)
            /// The records from the first one stamped within `duration` before now on.
            case within(Duration)
        }

        /// What happens to the records cut.
        public enum Disposal: Sendable, Hashable {
            /// They move to an archive file, `STEM.FIRST-LAST.labellog`, in
            /// `directory` (the log's own when `nil`): a log of its own that
            /// `labelreplay` reads and verifies, and that commands read first for
            /// the seqs it holds.
            case archive(directory: String?)
            /// They are dropped; the log's base says which, when and their time range.
            case drop
        }

        /// Which records stay.
        public var keep: Keep
        /// Where the others go.
        public var disposal: Disposal
        /// The fewest records a cut moves: a policy that would cut fewer leaves
        /// the log as it is (each cut rewrites the records kept). Default: 65,536.
        public var minimumCut: UInt64

        /// A policy; by default the records cut are archived beside the log, 65,536 at least at a time.
        public init(keep: Keep, disposal: Disposal = .archive(directory: nil), minimumCut: UInt64 = 65_536) {
            self.keep = keep
            self.disposal = disposal
            self.minimumCut = max(1, minimumCut)
        }
    }

    /// Applies `retention` to the log at `path`, which no store or writer may
    /// hold: finds the last record the policy lets go (the records before the
    /// newest ``Retention/Keep/lastRecords(_:)``, or before the first one stamped
    /// at or after `now` minus ``Retention/Keep/within(_:)``) and, when at least
    /// ``Retention/minimumCut`` records would go, cuts them off with
    /// ``cutHistory(path:through:archiveTo:now:)`` (same guarantees: a crash
    /// leaves the old log or the new layout). Returns what was cut, or `nil`
    /// when nothing was.
    ///
    /// An archive already at that name that an earlier cut of this log left
    /// when it stopped before replacing the log (a crash: byte for byte the
    /// log's first records, ending at the same seq) is written again; any
    /// other file there makes the cut fail with `fileExists`, untouched.
    ///
    /// A store applies its ``Options/retention`` this way when it opens and a cut is due.
    ///
    /// - Throws: ``StoreError/Code/storage(_:)`` with the `EventLogError` of reading
    ///   the log or of the cut (`logInUse` when a writer holds it, `fileExists`
    ///   when the archive's name is taken); what ``cutHistory(path:through:archiveTo:now:)`` throws.
    /// - Complexity: O(log): one pass reads the records' seqs and times, and a cut copies the log once.
    @discardableResult
    public static func applyRetention(path: String, _ retention: Retention, now: EventTimestamp = .now()) throws(StoreError)
        -> LogCut.Report?
    {
        let (first, lastCut) = try retentionCut(path: path, retention.keep, now: now)
        guard let lastCut, lastCut >= first, lastCut - first + 1 >= retention.minimumCut else { return nil }
        let archive: String?
        switch retention.disposal {
        case .drop: archive = nil
        case .archive(let directory): archive = archivePath(forLog: path, directory: directory, cut: first...lastCut)
        }
        // Copies that stopped cuts left are removed holding the log's lock: no cut of it can be under way then.
        return try cutHistory(
            path: path, through: lastCut, archiveTo: archive, now: now,
            whileLocked: {
                if case .archive(let directory) = retention.disposal {
                    removeLeftoverArchives(ofLog: path, directory: directory, firstSeq: first)
                }
            })
    }

    /// What ``Options/retention`` last did: when this store opened its log
    /// (a report with neither a cut nor an error: nothing was due), or, later,
    /// the last cut of the open log after an automatic snapshot, or why it
    /// failed (a failed cut changes nothing). `nil` without a policy.
    public var retentionReport: RetentionReport? { retentionOutcome.withLock { $0 } }

    /// The archive file of the records `cut` of the log at `path`:
    /// `STEM.FIRST-LAST.labellog` (`STEM`: the log's file name without a
    /// `.labellog` extension) in `directory`, or in the log's directory.
    public static func archivePath(forLog path: String, directory: String?, cut: ClosedRange<UInt64>) -> String {
        archiveDirectory(forLog: path, directory: directory) + "\(archiveStem(forLog: path)).\(cut.lowerBound)-\(cut.upperBound).labellog"
    }

    /// The log's file name without a `.labellog` extension.
    private static func archiveStem(forLog path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.hasSuffix(".labellog") ? String(name.dropLast(".labellog".count)) : name
    }

    /// Where a retention policy's archives go: `directory` or the log's, with a final `/` (empty: the current directory).
    private static func archiveDirectory(forLog path: String, directory: String?) -> String {
        if let directory { return directory.hasSuffix("/") ? directory : directory + "/" }
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[...slash])
    }

    /// Removes the archives that cuts of the log at `path` from `firstSeq`
    /// left when they stopped (a crash) after writing the archive and before
    /// replacing the log: `STEM.FIRST-LAST.labellog` files that are byte for
    /// byte the log's first records (``isLeftoverArchive(_:of:through:)``).
    /// The log still holds their records; the next cut writes its own archive.
    /// Call it holding the log's writer lock, so that no cut of the log is
    /// under way (one that is about to replace the log would lose its archive).
    static func removeLeftoverArchives(ofLog path: String, directory: String?, firstSeq: UInt64) {
        let folder = archiveDirectory(forLog: path, directory: directory)
        let prefix = "\(archiveStem(forLog: path)).\(firstSeq)-"
        let names = SystemFile.directoryEntries(folder.isEmpty ? "." : folder)
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".labellog") {
            guard let last = UInt64(name.dropFirst(prefix.count).dropLast(".labellog".count)),
                isLeftoverArchive(folder + name, of: path, through: last)
            else { continue }
            SystemFile.unlink(folder + name)
        }
    }

    /// Whether `policy` would cut at least its ``Retention/minimumCut`` records
    /// of the log `writer` holds (first seq `firstSeq`): by arithmetic for
    /// ``Retention/Keep/lastRecords(_:)``; for ``Retention/Keep/within(_:)``, by
    /// the time of the record the smallest cut would end at (one read through
    /// the writer's index).
    static func retentionIsDue(_ policy: Retention, in writer: LogWriter, firstSeq: UInt64, now: EventTimestamp) throws(StoreError)
        -> Bool
    {
        let last = writer.lastSeq
        guard last >= firstSeq, last - firstSeq + 1 >= policy.minimumCut else { return false }
        switch policy.keep {
        case .lastRecords(let count):
            return last - firstSeq + 1 > count && last - count - firstSeq + 1 >= policy.minimumCut
        case .within(let duration):
            let smallestCutEnd = firstSeq + policy.minimumCut - 1
            let record: EventRecord?
            do throws(EventLogError) {
                record = try writer.read(from: smallestCutEnd, maxCount: 1).first
            } catch {
                throw StoreError.storage(error)
            }
            guard let record, record.seq == smallestCutEnd else { return false }
            // Due when the record the smallest cut ends at, and every one before it, is older than the duration:
            // the cut is "before the first record stamped within it", so one record within it before that stops it.
            return record.timestamp.millisecondsSince1970 < threshold(now: now, duration: duration)
        }
    }

    /// `now` less `duration`, in milliseconds since 1970.
    static func threshold(now: EventTimestamp, duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return now.millisecondsSince1970 - (seconds * 1_000 + attoseconds / 1_000_000_000_000_000)
    }

    /// Whether the file at `archive` is exactly what a cut of the log at
    /// `path` through `lastCut` writes there: a log of the same id and first
    /// seq, ending at `lastCut`, whose bytes are the log's first bytes. Only an
    /// earlier cut that stopped before replacing the log leaves one; the log
    /// still holds every record in it.
    static func isLeftoverArchive(_ archive: String, of path: String, through lastCut: UInt64) -> Bool {
        guard let archived = try? LogReader(path: archive), let log = try? LogReader(path: path),
            archived.header.logID == log.header.logID, archived.header.firstSeq == log.header.firstSeq
        else { return false }
        var last: UInt64 = 0
        do { try archived.forEachView { last = $0.seq } } catch { return false }
        guard last == lastCut, let a = try? SystemFile.open(archive, .readOnly) else { return false }
        defer { a.close() }
        guard let b = try? SystemFile.open(path, .readOnly), let size = try? a.size() else { return false }
        defer { b.close() }
        var offset: Int64 = 0
        while offset < size {
            let count = Int(min(4 << 20, size - offset))
            guard let x = try? a.read(at: offset, count: count), let y = try? b.read(at: offset, count: count), x.count == count, x == y
            else { return false }
            offset += Int64(count)
        }
        return true
    }

    /// The log's first seq and the last seq `keep` lets go (`nil`: none).
    private static func retentionCut(path: String, _ keep: Retention.Keep, now: EventTimestamp) throws(StoreError)
        -> (first: UInt64, lastCut: UInt64?)
    {
        let reader: LogReader
        do throws(EventLogError) { reader = try LogReader(path: path) } catch { throw StoreError.storage(error) }
        let first = reader.header.firstSeq
        switch keep {
        case .lastRecords(let count):
            var last = first - 1
            do {
                try reader.forEachView { view in last = view.seq }
            } catch let error as EventLogError {
                throw StoreError.storage(error)
            } catch {
                throw StoreError.storage(EventLogError(.ioError, "\(error)", path: path))
            }
            return (first, last >= first && last - first + 1 > count ? last - count : nil)
        case .within(let duration):
            return (first, try lastRecordBefore(threshold(now: now, duration: duration), path: path))
        }
    }
}

/// What a store's retention policy last did: when it opened its log, or in a
/// cut of the open log after an automatic snapshot (``LabelStore/retentionReport``).
public struct RetentionReport: Sendable {
    /// What was cut (`nil`: nothing was due, or the cut failed).
    public var cut: LogCut.Report?
    /// Why the policy could not be applied (the log is then as it was: opened as it was, or left uncut).
    public var error: StoreError?

    /// Applies `policy` to the log at `path`, catching its failure.
    static func applying(_ policy: LabelStore.Retention, to path: String, now: EventTimestamp) -> RetentionReport {
        do throws(StoreError) {
            return RetentionReport(cut: try LabelStore.applyRetention(path: path, policy, now: now), error: nil)
        } catch {
            return RetentionReport(cut: nil, error: error)
        }
    }
}
