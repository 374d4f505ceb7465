import EventLog
import LabelProjection

/// `verify --quick`: every record checked as every read checks it (framing,
/// each frame's chained checksum, seq continuity) and hashed for `--head`,
/// but not decoded or folded — what a head proof needs, several times faster
/// than the fold.
extension Verify {
    /// The records of `reader` after `origin` (the log's start), checked and
    /// hashed into `hasher` (when heads are wanted); fills `result`'s last seq,
    /// or its problem at the first damaged record.
    static func quickPass(
        _ reader: LogReader, from origin: LabelList, hasher: ChunkedTreeHasher?, into result: inout VerifyResult, progress: Progress
    ) {
        var last = origin.lastSeq
        result.count = nil
        result.enabledCount = nil
        do {
            _ = try reader.forEachPayload { seq, payload in
                hasher?.append(payload: payload)
                last = seq
                if seq & 0x3FF == 0 { progress.update(reader.offset, detail: "seq \(seq)", often: false) }
            }
        } catch {
            result.problem = readProblem(error, at: reader.offset, nextSeq: last + 1)
        }
        result.lastSeq = last
    }
}
