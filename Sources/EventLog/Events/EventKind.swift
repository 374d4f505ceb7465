/// The kind of an event, with the stable name used in JSON and on the command line.
///
/// One type for every specialization of ``LabelEventOf``: ``LabelEventOf/Kind``
/// (so `LabelEvent.Kind` and `EventRecordView.Event.Kind`) is this type. The names
/// (`rawValue`) and the binary codes (``code``) are part of the formats and
/// never change.
public enum EventKind: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// One kind per case of ``LabelEventOf``, in the order of their codes (1…7).
    case added, renamed, toggled, removed, moved, reordered, rejected

    /// The one-byte code of this kind in the binary record (docs/FORMAT.md).
    public var code: UInt8 {
        switch self {
        case .added: 1
        case .renamed: 2
        case .toggled: 3
        case .removed: 4
        case .moved: 5
        case .reordered: 6
        case .rejected: 7
        }
    }

    /// The kind with this binary code, or `nil`.
    public init?(code: UInt8) {
        switch code {
        case 1: self = .added
        case 2: self = .renamed
        case 3: self = .toggled
        case 4: self = .removed
        case 5: self = .moved
        case 6: self = .reordered
        case 7: self = .rejected
        default: return nil
        }
    }

    /// The stable name, e.g. `renamed`.
    public var description: String { rawValue }
}
