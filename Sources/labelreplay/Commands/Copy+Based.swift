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
    /// directory's) renamed so it resolves from `destination` (``absolutized(_:from:)``,
    /// then ``relativized(_:for:)``).
    private static func rebased(_ base: LogBase, from sourceDirectory: String?, to destination: String) -> LogBase {
        relativized(absolutized(base, from: sourceDirectory), for: destination)
    }

    /// `base` with an archive named relative to `directory` (`nil`: the
    /// current directory) named by its absolute path instead.
    static func absolutized(_ base: LogBase, from directory: String?) -> LogBase {
        guard case .archived(let file) = base.disposition else { return base }
        var absolute = base
        absolute.disposition = .archived(
            file: URL(fileURLWithPath: absolutePath(file.hasPrefix("/") ? file : (directory ?? ".") + "/" + file)).standardizedFileURL.path)
        return absolute
    }

    /// `base`, whose archive is named by its absolute path, as the log at
    /// `destination` names it: by its file name when the log is in the
    /// archive's directory, else by the absolute path (also for a server list:
    /// a path on this machine).
    static func relativized(_ base: LogBase, for destination: String) -> LogBase {
        guard case .archived(let file) = base.disposition, case .file(let destinationPath) = LogLocation.resolve(destination) else {
            return base
        }
        let archive = URL(fileURLWithPath: file)
        guard
            archive.deletingLastPathComponent().path
                == URL(fileURLWithPath: absolutePath(SystemFile.directoryName(of: destinationPath))).standardizedFileURL.path
        else { return base }
        var relative = base
        relative.disposition = .archived(file: archive.lastPathComponent)
        return relative
    }

    /// `path`, made absolute from the current directory if it is relative.
    private static func absolutePath(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    /// Opens the log file at `path` for appending, creating it when missing
    /// (with `header`, as a based log of that history); an existing file must
    /// then be a based log of that history from the same seq
    /// (``checkBasedDestination(_:logID:firstSeq:chainValue:matches:command:)``;
    /// `command` names the refusal).
    static func openForAppending(_ path: String, basedOn header: LogHeader?, command: String) throws -> LogWriter {
        let writer: LogWriter
        do {
            var options = LogWriter.Options(createIfMissing: true)
            options.creationHeader = header
            writer = try LogWriter.open(path: path, options: options)
        } catch let error as EventLogError where error.code == .fileNotFound {
            throw Failure("\(path): cannot create the log: the directory \(SystemFile.directoryName(of: path)) does not exist")
        }
        if let header, !writer.created {
            let existing = writer.header
            do {
                try checkBasedDestination(
                    path, logID: existing.logID, firstSeq: existing.firstSeq, chainValue: existing.previousChecksum, matches: header,
                    command: command)
            } catch {
                writer.close()
                throw error
            }
        }
        return writer
    }

    /// Refuses a destination that exists but is not a based log or list of
    /// `header`'s history from the same seq with the same chained checksum there.
    /// `command` names the refusal (`copy`, `import`).
    static func checkBasedDestination(
        _ display: String, logID: LabelID, firstSeq: UInt64, chainValue: UInt32, matches header: LogHeader, command: String = "copy"
    ) throws {
        guard logID == header.logID, firstSeq == header.firstSeq, chainValue == header.previousChecksum else {
            let source = command == "copy" ? "the source's" : "the input's"
            throw Failure(
                "\(display): the destination holds another history than \(source) from seq \(header.firstSeq) (it starts at seq \(firstSeq)); refusing to \(command) (\(command) into a new destination)"
            )
        }
    }
}
