/// One archive of a history that was cut (docs/FORMAT.md, "Based logs"): the
/// file a base names, holding the records that base cut.
///
/// A history is a chain: the live log (a file or a server list) starts from
/// a base naming the archive of the records before it; that archive may
/// itself start from a base naming an older archive, and so on back to
/// seq 1 or to records that were dropped. A `HistoryArchive` is one link,
/// found by ``LogHistory``: where the file is and what the base after it
/// keeps of it (its seqs, time range, and the history tree's frontier after
/// its last record, which its records must hash to). Immutable; `Sendable`.
public struct HistoryArchive: Sendable, Hashable {
    /// The archive file's path: the name the base records, resolved against
    /// the directory of the file whose base names it (a name starting with
    /// `/` as it is).
    public var path: String
    /// The base that names the archive: in the header of the file after it
    /// (the live log, or a later archive).
    public var base: LogBase
    /// The chained checksum the file after the archive continues (its
    /// header's ``LogHeader/previousChecksum``): the archive's last record's.
    public var chainValue: UInt32
    /// The file whose base names the archive (for messages).
    public var namedBy: String

    /// The seqs the archive holds: the base's cut.
    public var seqs: ClosedRange<UInt64> { base.cut }

    /// Creates a link (``LogHistory`` finds them; tests make their own).
    public init(path: String, base: LogBase, chainValue: UInt32, namedBy: String) {
        self.path = path
        self.base = base
        self.chainValue = chainValue
        self.namedBy = namedBy
    }

    /// The path of the archive a base names: an absolute `file` as it is, a
    /// relative one in the directory of `namingFile` (a server list's bases
    /// name absolute paths; `namingFile` is then not a path and is not used).
    public static func resolve(_ file: String, namedBy namingFile: String) -> String {
        guard !file.hasPrefix("/") else { return file }
        guard let slash = namingFile.lastIndex(of: "/"), !namingFile.contains("://") else { return file }
        return String(namingFile[...slash]) + file
    }

    /// "records a…b, stamped T1 to T2": what the base says was cut.
    var cutDescription: String { Self.describe(base.cut, base.timeRange) }
}
