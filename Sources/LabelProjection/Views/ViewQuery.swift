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
///
/// An ASCII title searched for an ASCII text is matched without Foundation:
/// for ASCII, that search is an ASCII case-insensitive substring test in
/// every locale but the Turkic ones (Turkish and Azerbaijani fold `I` to
/// `ı`), so it is made so when the query is created in another locale (and
/// left to Foundation in those) — several times faster on a list of 100,000
/// labels, and the same answers (tested against Foundation's).
public struct ViewQuery: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The text a title must contain; empty matches everything.
    public var text: String {
        didSet { searchText = Self.searchForm(text) }
    }
    /// Whether only enabled labels are shown.
    public var enabledOnly: Bool
    /// `text` in the form it is matched in (its canonical decomposition): the query's identity.
    private var searchText: String {
        didSet { asciiText = Self.asciiFolded(searchText) }
    }
    /// `searchText` lowercased, when it is ASCII and the locale current when
    /// the text was set folds ASCII plainly (`nil`: every title goes to Foundation).
    private var asciiText: [UInt8]?

    /// Creates a query.
    public init(_ text: String = "", enabledOnly: Bool = false) {
        self.text = text
        self.enabledOnly = enabledOnly
        searchText = Self.searchForm(text)
        asciiText = Self.asciiFolded(searchText)
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
        if searchText.isEmpty { return true }
        if let asciiText, let found = Self.asciiContains(title, asciiText) { return found }
        return Self.searchForm(title).localizedStandardContains(searchText)
    }

    /// `text` lowercased as bytes when it is ASCII and the current locale is
    /// not a Turkic one (whose case folding of `I` and `i` leaves ASCII).
    static func asciiFolded(_ text: String) -> [UInt8]? {
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        let language = Locale.current.language.languageCode?.identifier
        guard language != "tr", language != "az" else { return nil }
        return text.utf8.map { $0 &+ ($0 >= 0x41 && $0 <= 0x5A ? 0x20 : 0) }
    }

    /// Whether `title` contains `needle` (lowercase ASCII) ignoring ASCII
    /// case; `nil` when the title is not ASCII (Foundation decides then).
    static func asciiContains(_ title: String, _ needle: [UInt8]) -> Bool? {
        var title = title
        return title.withUTF8 { bytes -> Bool? in
            var found = needle.isEmpty
            var ascii = true
            let n = needle.count
            for byte in bytes where byte >= 0x80 {
                ascii = false
                break
            }
            guard ascii else { return nil }
            guard !found, bytes.count >= n else { return found }
            needle.withUnsafeBufferPointer { needle in
                let first = needle[0]
                var start = 0
                while start + n <= bytes.count {
                    let byte = bytes[start]
                    if byte &+ (byte >= 0x41 && byte <= 0x5A ? 0x20 : 0) == first {
                        var k = 1
                        while k < n {
                            let b = bytes[start + k]
                            if b &+ (b >= 0x41 && b <= 0x5A ? 0x20 : 0) != needle[k] { break }
                            k += 1
                        }
                        if k == n {
                            found = true
                            return
                        }
                    }
                    start += 1
                }
            }
            return found
        }
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
