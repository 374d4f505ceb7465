import EventLog

/// The list a based log starts from (docs/FORMAT.md, "Based logs"): its
/// base block's image, the list after the last record cut, encoded as a
/// snapshot (docs/SNAPSHOTS.md) with every slot, removed labels included, so
/// that the records after the cut fold on it exactly as they folded on the
/// whole history.
extension LabelList {
    /// The base image of this list: its snapshot bytes, every slot included.
    ///
    /// - Complexity: O(s + t) for s known ids and t live title bytes.
    public func baseImageBytes(logID: LabelID) -> [UInt8] {
        snapshotBytes(logID: logID, fingerprint: 0, logPosition: nil)
    }

    /// The list before the first record of a log whose header is `header`:
    /// empty, or a based log's base image, checked to be of that log and at
    /// the seq before its first.
    ///
    /// - Throws: ``StoreError/Code/storage(_:)`` with `EventLogError.Code.corruptHeader`
    ///   naming `path` when the image does not decode or is of another log or seq.
    public static func origin(of header: LogHeader, path: String) throws(StoreError) -> LabelList {
        try origin(of: header.base, logID: header.logID, describe: path)
    }

    /// The list a storage starts from: empty without a base, else `base`'s
    /// image, checked to be of the history `logID` at the base's last cut seq
    /// (a server list's base, `EventStorage.base`).
    ///
    /// - Throws: ``StoreError/Code/storage(_:)`` with `EventLogError.Code.corruptHeader`
    ///   naming `describe` (a path, a list) when the image does not decode or is of another history or seq.
    public static func origin(of base: LogBase?, logID: LabelID, describe: String) throws(StoreError) -> LabelList {
        guard let base else { return LabelList() }
        func fail(_ reason: String) -> StoreError {
            .storage(
                EventLogError(.corruptHeader, "the base block's image \(reason)", path: describe, offset: Int64(LogFormat.headerLength)))
        }
        let decoded = base.image.withUnsafeBytes { raw in
            Result { () throws(SnapshotError) in try LabelList.decodeSnapshot(raw) }
        }
        switch decoded {
        case .failure(let error):
            throw fail("does not decode: \(error.message)")
        case .success(let (list, image)):
            guard image.logID == logID, list.lastSeq == base.lastCutSeq else {
                throw fail("is of log \(image.logID) at seq \(list.lastSeq), not of this log at seq \(base.lastCutSeq)")
            }
            return list
        }
    }

    /// ``origin(of:path:)`` for the log at `path`: empty when there is no file there yet.
    ///
    /// - Throws: ``StoreError/Code/storage(_:)`` when the file's header cannot be read or its image is bad.
    static func origin(ofLogAt path: String) throws(StoreError) -> LabelList {
        let header: LogHeader
        do throws(EventLogError) {
            header = try LogReader(path: path).header
        } catch  where error.code == .fileNotFound {
            return LabelList()
        } catch {
            throw .storage(error)
        }
        return try origin(of: header, path: path)
    }
}
