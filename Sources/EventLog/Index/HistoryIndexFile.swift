/// A log's history index file, `LOG.index` (docs/INDEX.md): finding it,
/// proving it belongs to the log, and writing it.
///
/// An index is a cache. It is used only after it proves it belongs to the log
/// it is read with (``load(for:wholeCheckLimit:)``); a missing, damaged, foreign or stale one
/// is reported and ignored, and the answer is computed by scanning, the same.
public enum HistoryIndexFile {
    /// Where the index of the log at `logPath` lives.
    public static func path(for logPath: String) -> String { logPath + ".index" }

    /// Where the delta file of the index of the log at `logPath` lives: the segments appended after the base.
    public static func deltaPath(for logPath: String) -> String { HistoryIndexDelta.path(for: logPath) }

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

    /// Reads the index of the log `reader` reads — its base, `LOG.index`, and
    /// the segments of its delta file, `LOG.index-delta` — and checks that it
    /// belongs to it: the log id, and a whole frame of each part's last record
    /// at the recorded position with the recorded checksum (in a format 2 log
    /// that checksum chains back to seq 1). The files are mapped, each part's
    /// header and small sections checked; the rest is checked part by part
    /// when read (a part of at most `wholeCheckLimit` bytes is checked whole
    /// now). A delta file that fails, or its segments from the first that
    /// fails on, are not used (``HistoryIndex/deltaProblem`` says why): the
    /// index then covers less, and the records after it are scanned. Never
    /// throws: every failure is a ``Lookup``.
    ///
    /// - Complexity: O(blocks + labels / 256 + actors) to check the headers and the small
    ///   sections (O(part size) up to `wholeCheckLimit`), plus one read of one frame of the
    ///   log per part.
    public static func load(for reader: LogReader, wholeCheckLimit: Int = wholeCheckLimit) -> Lookup {
        loadWithDelta(for: reader, wholeCheckLimit: wholeCheckLimit).lookup
    }

    /// ``load(for:wholeCheckLimit:)``, with what was read of the delta file (`nil` when the base is not usable).
    static func loadWithDelta(for reader: LogReader, wholeCheckLimit: Int = wholeCheckLimit)
        -> (lookup: Lookup, delta: HistoryIndexDelta.Contents?)
    {
        var result = loadOnce(for: reader, wholeCheckLimit: wholeCheckLimit)
        // A merge replaces the base, then the delta file: read between the two, the delta names the old base. Once more.
        if result.delta?.extendsAnotherBase == true {
            result = loadOnce(for: reader, wholeCheckLimit: wholeCheckLimit)
        }
        return result
    }

    private static func loadOnce(for reader: LogReader, wholeCheckLimit: Int) -> (lookup: Lookup, delta: HistoryIndexDelta.Contents?) {
        switch loadBase(for: reader, wholeCheckLimit: wholeCheckLimit) {
        case .failure(let failure):
            return (failure.lookup, nil)
        case .success(let base):
            let delta = HistoryIndexDelta.read(
                path: HistoryIndexDelta.path(for: reader.path), base: base, reader: reader, wholeCheckLimit: wholeCheckLimit)
            return (.usable(HistoryIndex(parts: [base] + delta.segments, deltaProblem: delta.problem)), delta)
        }
    }

    /// The base, once it proves it belongs to the log; else the lookup that says why not.
    private static func loadBase(for reader: LogReader, wholeCheckLimit: Int) -> Result<HistoryIndexPart, LookupFailure> {
        let path = path(for: reader.path)
        let bytes: HistoryIndexBytes
        do throws(EventLogError) { bytes = try HistoryIndexBytes(mapping: path) } catch {
            if error.code == .fileNotFound { return .failure(.init(.missing)) }
            return .failure(.init(.ignored(Problem(path: path, reason: "cannot be read: \(error.message)"))))
        }
        let base: HistoryIndexPart
        do throws(Problem) {
            base = try HistoryIndexPart.decode(bytes, path: path, checkingWholeBody: bytes.raw.count <= wholeCheckLimit)
        } catch {
            return .failure(.init(.ignored(error)))
        }
        guard base.logID == reader.header.logID else {
            return .failure(
                .init(
                    .ignored(Problem(path: path, reason: "it indexes another log (\(base.logID), not \(reader.header.logID))", offset: 16)))
            )
        }
        guard base.firstSeq == reader.header.firstSeq else {
            return .failure(
                .init(
                    .ignored(
                        Problem(
                            path: path,
                            reason: "it indexes the log from seq \(base.firstSeq), but the log starts at seq \(reader.header.firstSeq)",
                            offset: 32))))
        }
        guard let covered = base.covered else { return .success(base) }
        do throws(EventLogError) {
            switch try reader.keeps(covered) {
            case .kept:
                return .success(base)
            case .notHeld:
                return .failure(
                    .init(
                        .ignored(
                            Problem(
                                path: path,
                                reason:
                                    "the log does not hold the history it indexes: record \(covered.seq) is not at byte offset \(covered.offset) with its checksum (the log was cut or rewritten)"
                            ))))
            case .notKept:
                return .failure(.init(.ignored(Problem(path: path, reason: RecordKeeping.notKeptReason(covered.seq)))))
            }
        } catch {
            return .failure(.init(.ignored(Problem(path: path, reason: "the log could not be read to check it: \(error.message)"))))
        }
    }

    /// A lookup that found no usable base, as an error for `Result`.
    private struct LookupFailure: Error {
        let lookup: Lookup
        init(_ lookup: Lookup) { self.lookup = lookup }
    }
}
