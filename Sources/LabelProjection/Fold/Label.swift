import EventLog

/// One live label as the projection holds it: an immutable value snapshot.
///
/// - `id` is the stable identity (never derived from the title, never reused
///   for a different label while this one is live).
/// - `version` is the seq of the last event that added the label or changed
///   its `title` or `isEnabled`; moves and reorders do not change it. A writer
///   can send it back in a ``VersionExpectation`` to detect stale rows.
///
/// A `Label` is a value: it never changes after you read it. It is
/// `Sendable`, so it can be passed between threads and tasks freely.
public struct Label: Sendable, Hashable, Codable, Identifiable, CustomStringConvertible {
    /// The stable identity.
    public let id: LabelID
    /// The title (any Unicode text).
    public var title: String
    /// Whether the label is enabled.
    public var isEnabled: Bool
    /// The seq of the last event that added the label or changed its title or `isEnabled`.
    public var version: UInt64

    /// Creates a label value.
    public init(id: LabelID, title: String, isEnabled: Bool, version: UInt64) {
        self.id = id
        self.title = title
        self.isEnabled = isEnabled
        self.version = version
    }

    /// `title (on|off) [id, v<version>]`, for logs and test failures.
    public var description: String {
        "\(title) (\(isEnabled ? "on" : "off")) [\(id), v\(version)]"
    }
}

extension Label {
    /// Whether two labels are the same value: id, `isEnabled`, version, and
    /// the title's exact bytes (``Swift/String/sameBytes(_:_:)``), so labels
    /// whose titles are only canonically equivalent differ.
    public static func == (a: Label, b: Label) -> Bool {
        a.id == b.id && a.isEnabled == b.isEnabled && a.version == b.version && String.sameBytes(a.title, b.title)
    }

    /// Hashes what ``==(_:_:)`` compares (the title as its UTF-8 bytes).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(isEnabled)
        hasher.combine(version)
        title.withUTF8Bytes { hasher.combine(bytes: $0) }
        hasher.combine(title.utf8Count)
    }
}
