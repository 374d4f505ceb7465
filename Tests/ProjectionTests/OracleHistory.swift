import EventLog
import Foundation

@testable import LabelProjection

/// The texts the store oracle writes and searches: plain titles, and titles
/// that are canonically equivalent but different bytes (NFC and NFD forms),
/// on the scalars where Foundation's search is not normalization-invariant.
enum OracleText {
    /// Canonically equivalent pairs (equal `String`s, different UTF-8).
    static let twins: [(String, String)] = [
        ("Café", "Cafe\u{301}"),
        ("\u{622}ب", "\u{627}\u{653}ب"),  // alef with madda, then beh
        ("\u{929}", "\u{928}\u{93C}"),  // Devanagari nnna / na + nukta
        ("\u{AC00}", "\u{1100}\u{1161}")  // Hangul ga / its jamo
    ]

    static let titles: [String] =
        twins.flatMap { [$0.0, $0.1] }
        + ["Ring", "ring two", "Tile", "CAFE", "\u{627}ب", "\u{928}", "\u{1100}", "o", ""]

    /// Queries over them, including equal queries with different bytes (which share one maintained view).
    static let queries: [ViewQuery] = [
        ViewQuery("ring"), ViewQuery("cafe", enabledOnly: true), ViewQuery("é"), ViewQuery("e\u{301}"),
        ViewQuery("\u{622}"), ViewQuery("\u{627}\u{653}"), ViewQuery("\u{627}"), ViewQuery("\u{929}"),
        ViewQuery("\u{928}\u{93C}"), ViewQuery("\u{AC00}"), ViewQuery("\u{1100}\u{1161}"),
        ViewQuery(enabledOnly: true), ViewQuery("o"), ViewQuery("ب")
    ]

    /// The canonically equivalent twin of `title` (other bytes), if it has one.
    static func twin(of title: String) -> String? {
        for (a, b) in twins {
            if Array(title.utf8) == Array(a.utf8) { return b }
            if Array(title.utf8) == Array(b.utf8) { return a }
        }
        return nil
    }

    /// The documented matching, written independently of `ViewQuery`: the
    /// title contains the text, compared case- and diacritic-insensitively in
    /// both texts' canonical decomposition.
    static func naiveMatches(_ query: ViewQuery, _ label: Label) -> Bool {
        if query.enabledOnly && !label.isEnabled { return false }
        if query.text.isEmpty { return true }
        return label.title.decomposedStringWithCanonicalMapping.localizedStandardContains(query.text.decomposedStringWithCanonicalMapping)
    }
}

/// One visible row as the oracle compares it: id, title bytes, flag.
struct OracleRow: Hashable {
    let id: LabelID
    let title: [UInt8]
    let isEnabled: Bool
    init(_ label: Label) {
        id = label.id
        title = Array(label.title.utf8)
        isEnabled = label.isEnabled
    }
}

/// Everything the oracle knows: the reference model's state after every seq
/// (index = seq; 0 is empty), the event at each seq, and every query's rows
/// in each state, filtered naively.
struct OracleHistory {
    private(set) var states: [ModelList] = [ModelList()]
    private(set) var events: [LabelEvent?] = [nil]
    private(set) var visible: [[[Label]]] = [OracleText.queries.map { _ in [] }]

    var model: ModelList { states[states.count - 1] }
    var lastSeq: UInt64 { UInt64(states.count - 1) }

    /// Appends the state after `event` (which the caller knows is consistent).
    mutating func apply(_ event: LabelEvent) {
        var next = model
        next.apply(event, seq: lastSeq + 1)
        states.append(next)
        events.append(event)
        visible.append(OracleText.queries.map { query in next.rows.filter { OracleText.naiveMatches(query, $0) } })
    }

    /// The rows of query `index` after `seq`.
    func rows(query index: Int, at seq: UInt64) -> [Label] { visible[Int(seq)][index] }

    /// The value `dependency` has after `seq`, compared byte for byte; a
    /// subscriber is owed a notification exactly when it differs across a record.
    func value(of dependency: Dependency, viewIndex: Int?, at seq: UInt64) -> AnyHashable {
        let state = states[Int(seq)]
        switch dependency {
        case .membership: return state.ids
        case .title(let id): return state.row(id).map { Array($0.title.utf8) }
        case .isEnabled(let id): return state.row(id)?.isEnabled
        case .label(let id): return state.row(id).map(OracleRow.init)
        case .view: return rows(query: viewIndex!, at: seq).map(OracleRow.init)
        case .enabledCount: return state.enabledCount
        case .everything: return seq
        }
    }
}
