import EventLog
import LabelProjection

/// Importing an export that starts from a base (``ExportedBase``): the log is
/// created as a based log of the input's history — its id, first seq, chained
/// checksum and base — as `copy` creates one; an existing log must be a based
/// log of that history from the same seq (it then resumes, with `--resume`).
extension Import {
    /// Opens `log` for an import of a based export whose base is `header`,
    /// creating it (a file, or a server list) when missing; returns the store
    /// and whether the log was created.
    ///
    /// - Throws: ``Failure`` when the log exists and holds another history (it is not changed).
    static func openBased(_ log: String, header: LogHeader, console: Console) throws -> (LabelStore, Bool) {
        var header = header
        header.base = Copy.relativized(header.base!, for: log)
        switch LogLocation.resolve(log) {
        case .file(let path):
            let writer = try Copy.openForAppending(path, basedOn: header, command: "import")
            let created = writer.created
            writer.close()
            return (try Writing.open(path, create: false, console: console), created)
        case .server:
            let creation = try ServerStorage.create(LogLocation.resolve(log), basedOn: header)
            let opened = creation.opened
            if !creation.createdList {
                try Copy.checkBasedDestination(
                    opened.display, logID: LabelID(opened.logID), firstSeq: (opened.storage.base?.lastCutSeq ?? 0) + 1,
                    chainValue: opened.baseChainValue, matches: header, command: "import")
            }
            return (try Writing.store(over: opened.storage, options: LabelStore.Options(createIfMissing: false)), creation.createdList)
        }
    }
}
