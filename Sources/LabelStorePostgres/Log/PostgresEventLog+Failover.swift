#if Postgres
import EventLog

/// Replicas and failover (docs/POSTGRES.md, "Replicas and failover"): what
/// this log has seen of the list's history is never taken back.
///
/// A standby is behind its primary (a little with synchronous replication,
/// more without): a head read there that is lower than what this log has
/// seen is lag, and a follower waits for it. A server that accepts writes is
/// the list's authority: a head there lower than a record this log appended
/// or read, or a row at a seq this log read holding another record, means
/// records were lost in a failover (a promoted standby that had not received
/// them: asynchronous replication) — the server's history is no longer the
/// one this log holds, and it says so (`listReplaced`) instead of going
/// backwards or mixing the two.
extension PostgresEventLog {
    /// Notes that the record at `seq`, with the chained checksum `crc`, was
    /// appended by this log or read and checked by it (the mark moves forward only).
    func noteVerified(seq: UInt64, crc: UInt32) {
        verifiedTip.withLock { tip in
            if seq >= tip.seq { tip = ChainTip(seq: seq, crc: crc) }
        }
    }

    /// Throws when `head`, read on `connection`, is below a record this log
    /// appended or read, and the server is known to accept writes (a
    /// standby's lower head is lag: the caller waits for it; so is the head
    /// of a server that does not say which it is, before version 14, reached
    /// for reading — there a changed history is found by the row checksums).
    func checkNotBehind(head: UInt64, on connection: PostgresConnection) throws(PostgresStepFailure) {
        let seen = verifiedTip.withLock { $0.seq }
        guard head < seen, connection.isKnownWritable else { return }
        let split = firstDifferingSeq(below: head + 1, on: connection)
        throw .log(
            diverged(
                "the server, which accepts writes, says the list ends at seq \(head), but this handle appended or read it up to seq \(seen): seqs \(head + 1)…\(seen) are not on it\(split.text)",
                lastGood: split.lastGood))
    }

    /// Throws when the row at `seq`, with the checksum `crc`, read on
    /// `connection`, is not the record this log appended or read at that seq.
    func checkSameHistory(seq: UInt64, crc: UInt32, on connection: PostgresConnection) throws(PostgresStepFailure) {
        guard schemaVersion >= 2, let seen = seenChain.withLock({ $0.value(at: seq) }), seen != crc else { return }
        let split = firstDifferingSeq(below: seq, on: connection)
        throw .log(
            diverged(
                "the row of seq \(seq) is not the record this handle appended or read at that seq (its checksum is now another)\(split.text)",
                lastGood: split.lastGood))
    }

    /// Where the server's history (read on `connection`) and the one this
    /// handle saw part, given that they differ at `limit` (a seq the server
    /// lacks, or holds another record at): the last seq whose chained checksum
    /// both agree on, found by comparing the server's rows with ``seenChain``,
    /// and a clause saying so. When the handle's window does not reach back to
    /// the split, or the rows cannot be read, the clause says what is known.
    func firstDifferingSeq(below limit: UInt64, on connection: PostgresConnection) -> (lastGood: UInt64, text: String) {
        let window = seenChain.withLock { $0 }
        guard schemaVersion >= 2, let seqs = window.seqs, seqs.lowerBound < limit else {
            return (limit - 1, "")
        }
        let upper = min(seqs.upperBound, limit - 1)
        let result: PostgresResult
        do {
            result = try run { () throws(PostgresFailure) in
                try connection.execute(
                    statements.chainValues, [.text(location.list), .int8(Int64(seqs.lowerBound)), .int8(Int64(upper))])
            }
        } catch {
            return (limit - 1, "")
        }
        var agreed: UInt64? = nil
        var row = 0
        for seq in seqs.lowerBound...upper {
            guard row < result.rowCount, result.integer(row, 0) == Int64(seq),
                let crc = result.integer(row, 1), UInt32(truncatingIfNeeded: crc) == window.value(at: seq)
            else { break }
            agreed = seq
            row += 1
        }
        guard let agreed else {
            let first = seqs.lowerBound
            return (
                first > 1 ? first - 1 : 0,
                first > 1
                    ? "; the histories differ at seq \(first) or before (the earliest this handle remembers)"
                    : "; the histories differ from seq 1"
            )
        }
        return (agreed, "; the histories agree through seq \(agreed) and differ from seq \(agreed + 1)")
    }
    private func diverged(_ what: String, lastGood: UInt64) -> EventLogError {
        EventLogError(
            .listReplaced,
            "\(location): list '\(location.list)': \(what). The list's history changed under this handle: records were lost in a failover to a standby that had not received them (asynchronous replication), or rows were changed by hand; nothing is read from or appended to it through this handle (open it again; docs/POSTGRES.md, \"Replicas and failover\")",
            path: location.description, lastGoodSeq: lastGood)
    }
}
#endif
