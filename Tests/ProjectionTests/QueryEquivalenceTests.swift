import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// Queries that are equal (and so share one maintained view) match alike,
/// including on the scalars where Foundation's search is not
/// normalization-invariant (Arabic letters with marks, Devanagari nukta
/// forms, Hangul syllables, and the other precomposed scalars).
@Suite struct QueryEquivalenceTests {
    /// Every scalar whose canonical decomposition is other scalars, with that decomposition.
    static let decomposable: [(composed: String, decomposed: String)] = {
        var pairs: [(String, String)] = []
        for value in 0x80..<0x30000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let composed = String(Character(scalar))
            let decomposed = composed.decomposedStringWithCanonicalMapping
            if !decomposed.utf8.elementsEqual(composed.utf8) { pairs.append((composed, decomposed)) }
        }
        return pairs
    }()

    /// ASCII titles searched for ASCII texts are matched without Foundation
    /// (outside the Turkic locales): the answers are Foundation's, on 40,000
    /// seeded pairs of every ASCII character (letters of both cases, digits,
    /// punctuation, controls), texts cut from their titles (so most should
    /// match) and not; and a title that is not ASCII still goes to Foundation.
    @Test func asciiTitlesMatchAsFoundationsSearchDoes() {
        var rng = SeededGenerator(seed: 4747)
        let alphabet: [UInt8] = Array(0x20...0x7E) + Array("aAbBcCiIsSzZ".utf8) + [0x09, 0x0A]
        func random(_ length: Int) -> String {
            String(decoding: (0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] }, as: UTF8.self)
        }
        var disagreements: [String] = []
        var matched = 0
        for i in 0..<40_000 {
            let title = random(Int.random(in: 0...24, using: &rng))
            var text: String
            if i % 2 == 0, !title.isEmpty {
                let bytes = Array(title.utf8)
                let start = Int.random(in: 0..<bytes.count, using: &rng)
                let end = Int.random(in: start...bytes.count, using: &rng)
                // A cut of the title with its letters' case flipped at random.
                text = String(
                    decoding: bytes[start..<end].map { b in
                        Bool.random(using: &rng) && (0x41...0x5A).contains(b)
                            ? b + 0x20
                            : Bool.random(using: &rng) && (0x61...0x7A).contains(b) ? b - 0x20 : b
                    }, as: UTF8.self)
            } else {
                text = random(Int.random(in: 0...3, using: &rng))
            }
            let query = ViewQuery(text)
            let expected = text.isEmpty || title.localizedStandardContains(text)
            if query.matches(title: title) != expected { disagreements.append("\(title.debugDescription) ∋ \(text.debugDescription)") }
            if expected { matched += 1 }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count), e.g. \(disagreements.prefix(5))")
        #expect(matched > 15_000 && matched < 39_000, "both answers are exercised: \(matched)")
        #expect(ViewQuery.asciiFolded("Ring") != nil || ["tr", "az"].contains(Locale.current.language.languageCode?.identifier))
        #expect(ViewQuery("cafe").matches(title: "Café au lait"), "a title that is not ASCII goes to Foundation")
        #expect(ViewQuery("RING").matches(title: "ring two") && !ViewQuery("ring 3").matches(title: "Ring Two"))
    }

    @Test func equalQueriesMatchEveryTitleAlikeOnEveryDecomposableScalar() {
        #expect(Self.decomposable.count > 10_000)
        var disagreements: [String] = []
        for (composed, decomposed) in Self.decomposable {
            guard composed == decomposed else { continue }  // Swift's canonical equivalence: the queries are equal
            let a = ViewQuery(composed), b = ViewQuery(decomposed)
            if a != b || a.hashValue != b.hashValue { disagreements.append("\(composed.unicodeScalars.first!.value): queries differ") }
            let base = String(decomposed.unicodeScalars.first!)
            for title in ["x" + composed + "y", "x" + decomposed + "y", "x" + base + "y", base, "plain"]
            where a.matches(title: title) != b.matches(title: title) {
                disagreements.append(
                    "U+\(String(composed.unicodeScalars.first!.value, radix: 16, uppercase: true)) in \(title.unicodeScalars.map { String($0.value, radix: 16) })"
                )
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) disagreements, e.g. \(disagreements.prefix(8))")
    }

    @Test func aSubscriberOfOneQueryDoesNotChangeWhatAnEqualQueryShows() throws {
        let store = try makeStore()
        let composed = ViewQuery("\u{622}"), decomposed = ViewQuery("\u{627}\u{653}")
        #expect(composed == decomposed)
        let plainAlef = try store.add("\u{627}ب")
        try store.add("Ring")
        let (s1, first) = record(store, .view(composed))
        let unmaintained = store.labels.filter(decomposed.matches).map(\.id)
        #expect(store.view(decomposed).map(\.id) == unmaintained, "the maintained view of an equal query shows what that query matches")
        let (s2, second) = record(store, .view(decomposed))
        var mirrors = [store.view(composed).map(\.id), store.view(decomposed).map(\.id)]
        try store.rename(plainAlef, to: "\u{627}ت")
        try store.add("\u{622}", at: 0)
        for (n, received) in [first, second].enumerated() {
            for notification in received.all { for change in notification.viewChanges { change.apply(to: &mirrors[n]) } }
        }
        for (n, query) in [composed, decomposed].enumerated() {
            let naive = store.labels.filter(query.matches).map(\.id)
            #expect(store.view(query).map(\.id) == naive, "view \(n)")
            #expect(mirrors[n] == naive, "subscriber \(n)'s changes rebuild what its query matches")
        }
        _ = (s1, s2, plainAlef)
    }

    @Test func aQueryMatchesWhatItsCanonicalTwinMatchesInABuiltView() throws {
        let store = try makeStore()
        let titles = [
            "\u{627}ب", "\u{622}ب", "\u{627}\u{653}ب", "\u{928}", "\u{929}", "\u{928}\u{93C}", "\u{AC00}", "\u{1100}\u{1161}", "\u{1100}",
            "Cafe\u{301}", "Café", "cafe"
        ]
        for title in titles { try store.add(title) }
        for (a, b) in [("\u{622}", "\u{627}\u{653}"), ("\u{929}", "\u{928}\u{93C}"), ("\u{AC00}", "\u{1100}\u{1161}"), ("é", "e\u{301}")] {
            let x = ViewQuery(a), y = ViewQuery(b)
            #expect(
                FilteredView(query: x, list: store.snapshot) == FilteredView(query: y, list: store.snapshot),
                "\(a.unicodeScalars.map(\.value)) and \(b.unicodeScalars.map(\.value))")
        }
    }

    @Test func aQueryKeepsItsIdentityAndMatchingThroughMutationAndCoding() throws {
        var query = ViewQuery("ring", enabledOnly: true)
        query.text = "\u{627}\u{653}"
        #expect(query == ViewQuery("\u{622}", enabledOnly: true) && query != ViewQuery("\u{622}"))
        #expect(query.matches(title: "\u{627}ب") == ViewQuery("\u{622}").matches(title: "\u{627}ب"))
        let data = try JSONEncoder().encode(query)
        #expect(String(decoding: data, as: UTF8.self).contains("\"text\""))
        let decoded = try JSONDecoder().decode(ViewQuery.self, from: data)
        #expect(decoded == query && Array(decoded.text.utf8) == Array(query.text.utf8) && decoded.enabledOnly)
    }
}
