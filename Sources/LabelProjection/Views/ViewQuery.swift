import EventLog
import Foundation

/// What a filtered view shows: labels whose title contains ``text``, and
/// (with ``enabledOnly``) only enabled ones, in the list's original order.
///
/// Matching is `localizedStandardContains`: case- and diacritic-insensitive,
/// using the current locale's rules (the search Finder and Spotlight use),
/// so `ring` finds `Ring Two` and `cafe` finds `Café`. Empty text matches
/// every title. Because it follows the current locale, a view maintained
/// across a change of `Locale.current` keeps the rows it matched under the
/// old locale until they change.
///
/// Matching is also normalization-invariant: the title and the text are
/// both compared in their canonical decomposition (NFD; ASCII is its own),
/// so a title matches alike whichever canonically equivalent form it was
/// stored in, and canonically equivalent texts match alike. Query identity
/// agrees with it: two queries are equal (and share one maintained view)
/// exactly when their texts have the same canonical decomposition and
/// their ``enabledOnly`` agree. (Foundation's search alone is not
/// normalization-invariant on Linux: `"\u{622}"` and `"\u{627}\u{653}"`,
/// equal as `String`s, would find different titles.)
public struct ViewQuery: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The text a title must contain; empty matches everything.
    public var text: String {
        didSet { searchText = Self.searchForm(text) }
    }
    /// Whether only enabled labels are shown.
    public var enabledOnly: Bool
    /// `text` in the form it is matched in (its canonical decomposition): the query's identity.
    private var searchText: String

    /// Creates a query.
    public init(_ text: String = "", enabledOnly: Bool = false) {
        self.text = text
        self.enabledOnly = enabledOnly
        searchText = Self.searchForm(text)
    }

    /// The query that shows every label.
    public static let all = ViewQuery()

    /// Whether `label` is shown by this query.
    ///
    /// - Complexity: As ``matches(title:)``; O(1) when ``enabledOnly`` hides the label.
    public func matches(_ label: Label) -> Bool {
        (!enabledOnly || label.isEnabled) && matches(title: label.title)
    }

    /// Whether a title matches the text part of this query (both in their
    /// canonical decomposition, see the type's documentation).
    ///
    /// - Complexity: O(1) for an empty ``text``; otherwise O(m·k) at worst for a title of m
    ///   and a text of k characters (a substring search), after decomposing a non-ASCII
    ///   title into a new `String`, O(m).
    public func matches(title: String) -> Bool {
        searchText.isEmpty || Self.searchForm(title).localizedStandardContains(searchText)
    }

    /// `"text"` plus ` enabled-only` when set.
    public var description: String { "\"\(text)\"" + (enabledOnly ? " enabled-only" : "") }

    /// Whether two queries match alike: the same ``enabledOnly`` and texts
    /// with the same canonical decomposition.
    public static func == (a: ViewQuery, b: ViewQuery) -> Bool {
        a.enabledOnly == b.enabledOnly && String.sameBytes(a.searchText, b.searchText)
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(enabledOnly)
        searchText.withUTF8Bytes { hasher.combine(bytes: $0) }
        hasher.combine(searchText.utf8Count)
    }

    private enum CodingKeys: String, CodingKey {
        case text, enabledOnly
    }

    /// Decodes `{"text": …, "enabledOnly": …}`.
    ///
    /// - Throws: `DecodingError` from the decoder: `keyNotFound` when `text` or
    ///   `enabledOnly` is missing, `typeMismatch` or `valueNotFound` when one is not a
    ///   string or a Boolean.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(try container.decode(String.self, forKey: .text), enabledOnly: try container.decode(Bool.self, forKey: .enabledOnly))
    }

    /// Encodes `{"text": …, "enabledOnly": …}`.
    ///
    /// - Throws: What the encoder's keyed container throws (e.g. `EncodingError`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(text, forKey: .text)
        try container.encode(enabledOnly, forKey: .enabledOnly)
    }

    /// `text` as it is matched: itself when it is ASCII (already decomposed), else its canonical decomposition.
    static func searchForm(_ text: String) -> String {
        text.utf8.allSatisfy { $0 < 0x80 } ? text : text.decomposedStringWithCanonicalMapping
    }
}
