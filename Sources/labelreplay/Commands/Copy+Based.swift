import EventLog
import Foundation

#if Postgres
import LabelStorePostgres
#endif

/// Copying a based history (its records before some seq cut off to an
/// archive or dropped): the destination file is created as a based log with
/// the source's id, base and chain value at the cut, so its chain continues
/// the archive's, its records and head are the source's, and an archive of
/// the source still joins it.
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
            let storage = try ServerStorage.open(location).storage
            guard let base = storage.base else { return nil }
            guard let (logID, chainValue) = serverIdentity(storage) else {
                throw Failure("\(location.display): cannot read the list's id and chain value at its base")
            }
            header = LogHeader(
                logID: logID, createdAt: base.cutAt, base: rebased(base, from: nil, to: destination), previousChecksum: chainValue)
        }
        guard case .file = LogLocation.resolve(destination) else {
            throw Failure(
                "\(location.display): it starts at seq \(header.firstSeq) (its records before were cut off to an archive or dropped); copying such a history to a server list is not built yet — copy it to a log file, or copy the whole history (its archive's records first)"
            )
        }
        header.version = LogFormat.basedVersion
        return header
    }

    /// `base` with an archive named relative to `sourceDirectory` (a file
    /// source; `nil`: the name is already absolute or the current
    /// directory's) renamed so it resolves from `destination`'s directory:
    /// just its file name when both directories are the same, else its
    /// absolute path.
    private static func rebased(_ base: LogBase, from sourceDirectory: String?, to destination: String) -> LogBase {
        guard case .archived(let file) = base.disposition, case .file(let destinationPath) = LogLocation.resolve(destination) else {
            return base
        }
        let here = FileManager.default.currentDirectoryPath
        func absolute(_ path: String) -> String { path.hasPrefix("/") ? path : here + "/" + path }
        let archive = URL(fileURLWithPath: file.hasPrefix("/") ? file : absolute((sourceDirectory ?? ".") + "/" + file)).standardizedFileURL
        let destinationDirectory = URL(fileURLWithPath: absolute(SystemFile.directoryName(of: destinationPath))).standardizedFileURL
        var rebased = base
        let sameDirectory = archive.deletingLastPathComponent().path == destinationDirectory.path
        rebased.disposition = .archived(file: sameDirectory ? archive.lastPathComponent : archive.path)
        return rebased
    }

    /// A server list's id and the chain value at its base.
    private static func serverIdentity(_ storage: any EventStorage) -> (LabelID, UInt32)? {
        #if Postgres
        guard let list = storage as? PostgresEventLog else { return nil }
        return (list.checkpointHistoryID, list.baseChainValue)
        #else
        return nil
        #endif
    }

    /// Refuses a destination log that exists but is not a based log of
    /// `header`'s history from the same seq and chain value.
    static func checkBasedDestination(_ writer: LogWriter, matches header: LogHeader) throws {
        let existing = writer.header
        guard existing.logID == header.logID, existing.firstSeq == header.firstSeq, existing.previousChecksum == header.previousChecksum
        else {
            throw Failure(
                "\(writer.path): the destination holds another history than the source's from seq \(header.firstSeq) (it starts at seq \(existing.firstSeq)); refusing to copy (copy into a new destination)"
            )
        }
    }
}
