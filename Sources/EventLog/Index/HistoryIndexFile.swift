/// A log's history index file, `LOG.index` (docs/INDEX.md): finding it,
/// proving it belongs to the log, and writing it.
///
/// An index is a cache. It is used only after it proves it belongs to the log
/// it is read with (``load(for:wholeCheckLimit:)``); a missing, damaged, foreign or stale one
/// is reported and ignored, and the answer is computed by scanning, the same.
public enum HistoryIndexFile {
    /// Where the index of the log at `logPath` lives.
    public static func path(for logPath: String) -> String { logPath + ".index" }

    /// Why an index file is not used: what is wrong, in words, and where.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// The index file's path.
        public var path: String
        /// What is wrong.
        public var reason: String
        /// The byte offset in the index file at fault, where one is.
        public var offset: Int?

        /// Creates a problem report.
        public init(path: String, reason: String, offset: Int? = nil) {
            self.path = path
            self.reason = reason
            self.offset = offset
        }

        /// "PATH: reason (at byte N)".
        public var description: String { "\(path): \(reason)" + (offset.map { " (at byte \($0))" } ?? "") }
    }

    /// What looking for a log's index found.
    public enum Lookup: Sendable {
        /// There is no index file.
        case missing
        /// There is one, and it is not used, for this reason.
        case ignored(Problem)
        /// A usable index: it belongs to the log (its records up to ``HistoryIndex/covered`` are the log's).
        case usable(HistoryIndex)

        /// The usable index, if any.
        public var index: HistoryIndex? {
            if case .usable(let index) = self { return index }
            return nil
        }
    }

    /// Index files up to this size are checked whole when they are opened
    /// (their body's checksum: a millisecond or less), so damage anywhere in
    /// them is reported at once; larger ones are checked part by part as the
    /// parts are read.
    public static let wholeCheckLimit = 1 << 20

    /// Reads the index of the log `reader` reads and checks that it belongs to
    /// it: the log id, and a whole frame of the covered record at the recorded
    /// position with the recorded checksum (in a format 2 log that checksum
    /// chains back to seq 1). The file is mapped, its header and small sections
    /// checked; the rest is checked part by part when read (an index of at most
    /// `wholeCheckLimit` bytes is checked whole now). Never throws: every
    /// failure is a ``Lookup``.
    ///
    /// - Complexity: O(blocks + labels / 256 + actors) to check the header and the small
    ///   sections (O(index size) up to `wholeCheckLimit`), plus one read of one frame of the log.
    public static func load(for reader: LogReader, wholeCheckLimit: Int = wholeCheckLimit) -> Lookup {
        let path = path(for: reader.path)
        let bytes: HistoryIndexBytes
        do throws(EventLogError) { bytes = try HistoryIndexBytes(mapping: path) } catch {
            if error.code == .fileNotFound { return .missing }
            return .ignored(Problem(path: path, reason: "cannot be read: \(error.message)"))
        }
        let index: HistoryIndex
        do throws(Problem) {
            index = try HistoryIndex.decode(bytes, path: path, checkingWholeBody: bytes.raw.count <= wholeCheckLimit)
        } catch {
            return .ignored(error)
        }
        guard index.logID == reader.header.logID else {
            return .ignored(Problem(path: path, reason: "it indexes another log (\(index.logID), not \(reader.header.logID))", offset: 16))
        }
        guard let covered = index.covered else { return .usable(index) }
        do throws(EventLogError) {
            switch try reader.keeps(covered) {
            case .kept:
                break
            case .notHeld:
                return .ignored(
                    Problem(
                        path: path,
                        reason:
                            "the log does not hold the history it indexes: record \(covered.seq) is not at byte offset \(covered.offset) with its checksum (the log was cut or rewritten)"
                    ))
            case .notKept:
                return .ignored(
                    Problem(path: path, reason: RecordKeeping.notKeptReason(covered.seq)))
            }
        } catch {
            return .ignored(Problem(path: path, reason: "the log could not be read to check it: \(error.message)"))
        }
        return .usable(index)
    }

    /// What ``HistoryIndexFile/update(logPath:rebuild:progress:)`` did.
    public struct Update: Sendable {
        /// The index as written.
        public var index: HistoryIndex
        /// What was there before (a usable index was extended; otherwise it was rebuilt from seq 1).
        public var previous: Lookup
        /// How many records were added to it.
        public var added: UInt64
    }

    /// Brings the index of the log at `logPath` up to date and writes it
    /// (atomically and durably): a usable index is extended with the records
    /// after the ones it covers; otherwise (missing, ignored, or `rebuild`)
    /// it is built from seq 1. Reads the log without locking it, so it works
    /// beside a writer (it indexes the records complete when it reads them).
    /// `progress` is called now and then with the last seq indexed.
    ///
    /// - Throws: ``EventLogError``: what ``LogReader/init(path:fileSystem:)`` throws for the
    ///   log; ``EventLogError/Code/corruptRecord`` or ``EventLogError/Code/seqGap`` for damage
    ///   in it (nothing is written then); ``EventLogError/Code/ioError`` when writing the
    ///   index fails (the old one, if any, is unchanged).
    /// - Complexity: O(records added), plus O(index size) to read and write it.
    @discardableResult
    public static func update(logPath: String, rebuild: Bool = false, progress: ((UInt64) -> Void)? = nil) throws(EventLogError)
        -> Update
    {
        let reader = try LogReader(path: logPath)
        var builder = HistoryIndexBuilder(logID: reader.header.logID)
        var previous = load(for: reader)
        if !rebuild, let usable = previous.index, let covered = usable.covered {
            do throws(Problem) {
                builder = try HistoryIndexBuilder(usable)
            } catch {
                previous = .ignored(error)  // a damaged part: rebuilt from seq 1
            }
            if builder.covered != nil {
                try reader.seek(toSeq: covered.seq + 1, atOffset: covered.end, previousChecksum: covered.checksum ?? 0)
            }
        }
        let before = builder.coveredSeq
        while let next = try reader.nextPositionedView() {
            builder.add(next.view, at: next.position)
            if next.view.seq % 4_096 == 0 { progress?(next.view.seq) }
        }
        let bytes = builder.encoded()
        try SystemFile.writeAtomically(bytes, to: path(for: logPath))
        let index = HistoryIndexBuilder.index(from: bytes, path: path(for: logPath))
        return Update(index: index, previous: previous, added: index.coveredSeq - before)
    }
}
