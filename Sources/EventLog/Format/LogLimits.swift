/// The documented size limits of the log format (docs/FORMAT.md).
///
/// They bound what a decoder allocates for one record, whatever the bytes
/// say: a length field larger than these is reported as corruption, never
/// allocated.
public enum LogLimits {
    /// Largest title, in UTF-8 bytes (16 KiB).
    public static let maxTitleBytes = 16 * 1024
    /// Largest actor name, in UTF-8 bytes.
    public static let maxActorBytes = 1024
    /// Largest note, in UTF-8 bytes.
    public static let maxNoteBytes = 4096
    /// Largest `rejected` command or reason text, in UTF-8 bytes.
    public static let maxReasonBytes = 4096
    /// Largest record payload, in bytes (64 MiB).
    public static let maxPayloadBytes = 64 * 1024 * 1024
    /// Most ids in one `reordered` event (what fits in `maxPayloadBytes` with a
    /// short envelope; with a long actor or note the whole payload must still
    /// fit in `maxPayloadBytes`, which encoding checks).
    public static let maxReorderCount = (maxPayloadBytes - 64) / 16
    /// Largest list index a record may carry.
    public static let maxIndex = Int(Int32.max)
}
