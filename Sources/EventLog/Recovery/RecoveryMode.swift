/// What opening a log does with damage it finds, modelled on RocksDB's WAL
/// recovery modes.
///
/// | mode | RocksDB | torn tail | damage before the tail |
/// |---|---|---|---|
/// | ``tolerateCorruptedTail`` (default) | `kTolerateCorruptedTailRecords` | cut and reported | open fails |
/// | ``absoluteConsistency`` | `kAbsoluteConsistency` | open fails | open fails |
/// | ``pointInTime`` (salvage) | `kPointInTimeRecovery` | cut and reported | the good prefix is kept, the rest cut and reported |
///
/// RocksDB's `kSkipAnyCorruptedRecords` is deliberately not offered: a log
/// whose seqs are gapless cannot skip a record without inventing history.
public enum RecoveryMode: String, Sendable, Hashable, CaseIterable, Codable {
    /// Cut an incomplete or damaged last record (what a crash leaves); fail on anything else.
    case tolerateCorruptedTail
    /// Fail on any damage, even a torn tail.
    case absoluteConsistency
    /// Salvage: keep every record before the first damage, wherever it is.
    case pointInTime
}
