import EventLog
import Foundation

/// Copying a based history (its records before some seq cut off to an
/// archive or dropped): the destination (a log file, or a server list) is
/// created as a based log or list with the source's id, base and chain value
/// at the cut, so its chain continues the archive's, its records and head are
/// the source's, and an archive of the source still joins it.
extension Copy {
    /// The header a based source's copy gets: `source`'s id, base and chain
    /// value; an archive named relative to the source's directory is named so
    /// that it resolves from `destination`'s.
    static func basedHeader(of source: String, destination: String) throws -> LogHeader? {
        let location = LogLocation.resolve(source)
        var header: LogHeader
        switch location {
        case .file(let path):
            let sourceHeader = try Replay.openReader(path).header
            guard let base = sourceHeader.base else { return nil }
            header = LogHeader(
                logID: sourceHeader.logID, createdAt: sourceHeader.createdAt,
                base: rebased(base, from: SystemFile.directoryName(of: path), to: destination),
                previousChecksum: sourceHeader.previousChecksum)
        case .server:
            let opened = try ServerStorage.open(location)
            guard let base = opened.storage.base else { return nil }
            header = LogHeader(
                logID: LabelID(opened.logID), createdAt: base.cutAt, base: rebased(base, from: nil, to: destination),
                previousChecksum: opened.baseChainValue)
        }
        header.version = LogFormat.basedVersion
        return header
    }

    /// `base` with an archive named relative to `sourceDirectory` (a file
    /// source; `nil`: the name is already absolute or the current
    /// directory's) renamed so it resolves from `destination`: for a log
    /// file, just its file name when both directories are the same, else its
    /// absolute path; for a server list, its absolute path (on this machine).
    private static func rebased(_ base: LogBase, from sourceDirectory: String?, to destination: String) -> LogBase {
        guard case .archived(let file) = base.disposition else { return base }
        let here = FileManager.default.currentDirectoryPath
        func absolute(_ path: String) -> String { path.hasPrefix("/") ? path : here + "/" + path }
        let archive = URL(fileURLWithPath: file.hasPrefix("/") ? file : absolute((sourceDirectory ?? ".") + "/" + file)).standardizedFileURL
        var rebased = base
        rebased.disposition = .archived(file: archive.path)
        if case .file(let destinationPath) = LogLocation.resolve(destination),
            archive.deletingLastPathComponent().path
                == URL(fileURLWithPath: absolute(SystemFile.directoryName(of: destinationPath))).standardizedFileURL.path
        {
            rebased.disposition = .archived(file: archive.lastPathComponent)
        }
        return rebased
    }

    /// Refuses a destination that exists but is not a based log or list of
    /// `header`'s history from the same seq with the same chained checksum there.
    static func checkBasedDestination(
        _ display: String, logID: LabelID, firstSeq: UInt64, chainValue: UInt32, matches header: LogHeader
    ) throws {
        guard logID == header.logID, firstSeq == header.firstSeq, chainValue == header.previousChecksum else {
            throw Failure(
                "\(display): the destination holds another history than the source's from seq \(header.firstSeq) (it starts at seq \(firstSeq)); refusing to copy (copy into a new destination)"
            )
        }
    }
}
