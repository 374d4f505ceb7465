import Foundation
import EventLog

/// What a filtered view shows: labels whose title contains ``text``, and
/// (with ``enabledOnly``) only enabled ones, in the list's original order.
///
/// Matching is `title.localizedStandardContains(text)`: case- and
/// diacritic-insensitive, using the current locale's rules (the search
/// Finder and Spotlight use), so `ring` finds `Ring Two` and `cafe` finds
/// `Café`. Empty text matches every title. Because it follows the current
/// locale, a view maintained across a change of `Locale.current` keeps the
/// rows it matched under the old locale until they change.
public struct ViewQuery: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The text a title must contain; empty matches everything.
    public var text: String
    /// Whether only enabled labels are shown.
    public var enabledOnly: Bool

    /// Creates a query.
    public init(_ text: String = "", enabledOnly: Bool = false) {
        self.text = text
        self.enabledOnly = enabledOnly
    }

    /// The query that shows every label.
    public static let all = ViewQuery()

    /// Whether `label` is shown by this query.
    public func matches(_ label: Label) -> Bool {
        (!enabledOnly || label.isEnabled) && matches(title: label.title)
    }

    /// Whether a title matches the text part of this query.
    public func matches(title: String) -> Bool {
        text.isEmpty || title.localizedStandardContains(text)
    }

    /// `"text"` plus ` enabled-only` when set.
    public var description: String { "\"\(text)\"" + (enabledOnly ? " enabled-only" : "") }
}
