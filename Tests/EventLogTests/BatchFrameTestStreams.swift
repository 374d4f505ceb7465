import Foundation
import LabelStoreTestSupport

@testable import EventLog

/// Random runs of records of every kind, from a seed (so a failure replays):
/// ids from a small pool (so a frame repeats them) and new ones; titles of
/// every shape a title can take (empty, spaces leading, trailing and in
/// rows, tabs, no spaces, non-ASCII, the same text composed and decomposed,
/// long); actors and notes present or not; timestamps that jump both ways,
/// across the whole `Int64` range at times.
struct RandomRecords {
    /// The generator; tests draw from it too.
    var rng: SeededGenerator
    /// Ids that recur.
    private var pool: [LabelID] = []
    /// The last title given to each id, so renames and removals often state it (the same-title bit).
    private var titles: [LabelID: String] = [:]
    /// The timestamp of the last record made.
    private var time: Int64

    /// Titles of the shapes the word split must keep exactly.
    static let shapes: [String] = [
        "", " ", "  ", "   ", " a", "a ", " a ", "a  b", "a b", "a\tb", "\t", "tab\tinside word", "no-spaces-at-all",
        "\u{E9}", "e\u{301}", "Caf\u{E9} Cr\u{E8}me", "Cafe\u{301} Cre\u{300}me", "日本語 の ラベル", "👩🏽‍💻 e\u{301} \u{202E}rtl",
        "Work Home", "Home Work", "Work  Home ", "\u{A0}nbsp\u{A0}", "line\nbreak", "\u{FEFF}bom", "\u{1F3F7}\u{FE0F} Tags"
    ]
    /// Words that titles repeat.
    static let vocabulary = ["Work", "Home", "Urgent", "Later", "Caf\u{E9}", "Stra\u{DF}e", "日本語", "\u{1F3F7}", "Q3", "2026", "", "a"]
    /// The pieces random texts are made of: spaces, tabs, ASCII, combining marks, CJK, emoji, the last scalar.
    static let pieces = [" ", " ", "a", "b", "Z", "\t", "\u{E9}", "\u{301}", "中", "😀", "\u{10FFFF}", "\u{7F}", "\u{1}", "\n", "\u{A0}"]
    /// Actors, notes, commands and reasons that recur; Å composed and decomposed.
    static let strings = ["ana", "bo", "", " ", "chlo\u{E9}", "sync-service", "A\u{30A}sa", "\u{C5}sa", "rename to 'X'", "Edit skipped."]

    /// A generator of records determined by `seed`.
    init(seed: UInt64) {
        rng = SeededGenerator(seed: seed)
        time = 0
        time = [0, 1_767_571_200_000, -5_000, Int64.min, Int64.max][below(5)]
        pool = (0..<24).map { _ in newID() }
    }

    /// A number in `0..<n`.
    private mutating func below(_ n: Int) -> Int { Int.random(in: 0..<n, using: &rng) }

    /// A new random id.
    private mutating func newID() -> LabelID {
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255, using: &rng) }
        return LabelID(
            bytes: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    /// An id: usually one of the pool, at times a new one.
    private mutating func id() -> LabelID { below(10) < 7 ? pool[below(pool.count)] : newID() }

    /// A random text of `count` pieces.
    private mutating func text(pieces count: Int) -> String {
        (0..<count).map { _ in Self.pieces[below(Self.pieces.count)] }.joined()
    }

    /// A title of any shape, long ones included.
    mutating func title() -> String {
        switch below(6) {
        case 0, 1:
            return Self.shapes[below(Self.shapes.count)]
        case 2, 3:
            let separators = [" ", " ", " ", "  ", "\t"]
            return (0..<below(8) + 1).map { i in
                (i == 0 ? "" : separators[below(separators.count)]) + Self.vocabulary[below(Self.vocabulary.count)]
            }.joined()
        case 4:
            return text(pieces: below(30))
        default:
            var title = ""
            let target = 200 + below(4_000)
            while title.utf8.count < target { title += Self.vocabulary[below(Self.vocabulary.count)] + (below(5) == 0 ? "  " : " ") }
            return title
        }
    }

    /// An actor, note, command or reason: one that recurs, or a random text.
    private mutating func string() -> String { below(3) == 0 ? text(pieces: below(12)) : Self.strings[below(Self.strings.count)] }

    /// An index, small or large.
    private mutating func index() -> Int {
        [0, 1, 127, 128, 99_999, LogLimits.maxIndex, Int.random(in: 0...LogLimits.maxIndex, using: &rng)][below(7)]
    }

    /// An event of any kind.
    private mutating func event() -> LabelEvent {
        let id = id()
        switch below(7) {
        case 0:
            let title = title()
            titles[id] = title
            return .added(id: id, title: title, isEnabled: Bool.random(using: &rng), index: index())
        case 1:
            let old = below(10) < 6 ? titles[id] ?? title() : title()
            let new = title()
            titles[id] = new
            return .renamed(id: id, oldTitle: old, newTitle: new)
        case 2:
            return .toggled(id: id, isEnabled: Bool.random(using: &rng))
        case 3:
            let title = below(10) < 6 ? titles[id] ?? title() : title()
            titles[id] = title
            return .removed(id: id, index: index(), title: title, isEnabled: Bool.random(using: &rng))
        case 4:
            return .moved(id: id, from: index(), to: index())
        case 5:
            return .reordered(order: (0..<below(20)).map { _ in self.id() })
        default:
            return .rejected(id: below(2) == 0 ? nil : id, command: string(), reason: string())
        }
    }

    /// `count` records with consecutive seqs from `firstSeq` (by default one
    /// of 1, a large seq, the last that fits, or a random one).
    mutating func run(count: Int, firstSeq: UInt64? = nil) -> [EventRecord] {
        let first =
            firstSeq ?? [1, 1_000_000, UInt64.max - UInt64(count) + 1, UInt64.random(in: 1...UInt64.max / 2, using: &rng)][below(4)]
        return (0..<count).map { i in
            if i > 0 {
                let deltas: [Int64] = [0, 1, 250, 4_000, -1, -86_400_000, Int64.random(in: .min ... .max, using: &rng)]
                time &+= deltas[below(10) == 0 ? deltas.count - 1 : below(deltas.count - 1)]
            }
            let actor = below(2) == 0 ? string() : nil
            let note = below(4) == 0 ? string() : nil
            return EventRecord(
                seq: first + UInt64(i), timestamp: EventTimestamp(millisecondsSince1970: time), actor: actor, note: note, event: event())
        }
    }
}

/// A typical editing workload, as the benchmarks' `cli-*` stream draws it
/// (Benchmarks/Sources/LabelBenchKit/Support/EventStream.swift): a list of
/// many live labels, edited ~40% by renames, ~30% toggles, ~15% adds, ~10%
/// moves, ~5% removals; titles of 8–40 characters from a small vocabulary;
/// an actor on 30% of records, a note on 3%; 1 ms – 4 s between records.
/// The order of the list is not modelled (positions are drawn), only the
/// sizes of the values.
struct EditingStream {
    /// The generator.
    private var rng: SeededGenerator
    /// The live labels' ids, titles and states.
    private var ids: [LabelID] = []
    private var titles: [String] = []
    private var enabled: [Bool] = []
    /// The last record's time.
    private var time: Int64 = 1_767_571_200_000

    /// The benchmarks' title words (`TitleGenerator`).
    static let words = [
        "Work", "Home", "Urgent", "Later", "Someday", "Waiting", "Project", "Review", "Draft",
        "Groceries", "Travel", "Finance", "Taxes", "Invoices", "Receipts", "Health", "Dentist",
        "Reading", "Books", "Movies", "Music", "Podcasts", "Ideas", "Notes", "Meeting", "Calls",
        "Follow-up", "Team", "Design", "Backend", "Frontend", "Release", "Bugs", "Q3", "Q4",
        "2026", "Budget", "Garden", "Kids", "School", "Sport", "Running", "Recipes", "Shopping",
        "Gifts", "Birthday", "Archive", "Personal", "Client", "Admin", "Research", "Errands",
        "Büro", "Café", "Straße", "Résumé", "naïve", "Niño", "São Paulo", "Zürich",
        "Ελλάδα", "Москва", "東京", "日本語", "Größe", "Crème brûlée", "🏷️ Tags", "Øresund"
    ]
    /// The benchmarks' actors.
    static let actors = ["alice", "bob", "chloé", "dmitri", "sync-service", "ios-7f3a", "mac-02c1"]

    /// A stream over a list of `liveLabels` labels made up front (not recorded).
    init(seed: UInt64, liveLabels: Int) {
        rng = SeededGenerator(seed: seed)
        for _ in 0..<liveLabels { addLabel() }
    }

    /// A number in `0..<n`.
    private mutating func below(_ n: Int) -> Int { Int.random(in: 0..<n, using: &rng) }

    /// A title of 8–40 characters of words, as `TitleGenerator` makes them.
    private mutating func title() -> String {
        let target = 8 + below(33)
        var title = ""
        while title.count < target { title += (title.isEmpty ? "" : " ") + Self.words[below(Self.words.count)] }
        if title.count > 40 { title = String(title.prefix(40)) }
        while title.last == " " { title.removeLast() }
        return title
    }

    /// Adds a label to the model; returns its handle.
    @discardableResult
    private mutating func addLabel() -> Int {
        ids.append(LabelID(randomUUID()))
        titles.append(title())
        enabled.append(below(100) < 85)
        return ids.count - 1
    }

    /// A random UUID from the seeded generator.
    private mutating func randomUUID() -> UUID {
        let a = rng.next(), b = rng.next()
        return withUnsafeBytes(of: (a, b)) { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
    }

    /// The next `count` records, from `firstSeq`.
    mutating func next(_ count: Int, firstSeq: UInt64) -> [EventRecord] {
        (0..<count).map { i in
            time += Int64(1 + below(4_000))
            let event = event()
            let actor = below(100) < 30 ? Self.actors[below(Self.actors.count)] : nil
            let note = below(100) < 3 ? "batch edit #\(below(10_000))" : nil
            return EventRecord(
                seq: firstSeq + UInt64(i), timestamp: EventTimestamp(millisecondsSince1970: time), actor: actor, note: note, event: event)
        }
    }

    /// One edit.
    private mutating func event() -> LabelEvent {
        let roll = below(100), h = below(ids.count)
        switch roll {
        case ..<40:
            let old = titles[h]
            titles[h] = title()
            return .renamed(id: ids[h], oldTitle: old, newTitle: titles[h])
        case ..<70:
            enabled[h].toggle()
            return .toggled(id: ids[h], isEnabled: enabled[h])
        case ..<85:
            let index = below(100) < 70 ? ids.count : below(ids.count + 1)
            let new = addLabel()
            return .added(id: ids[new], title: titles[new], isEnabled: enabled[new], index: index)
        case ..<95:
            let from = below(ids.count)
            var to = below(100) < 75 ? from + (below(2) == 0 ? -1 : 1) * (1 + below(5)) : below(ids.count)
            to = min(max(to, 0), ids.count - 1)
            if to == from { to = from == 0 ? 1 : from - 1 }
            return .moved(id: ids[h], from: from, to: to)
        default:
            let event = LabelEvent.removed(id: ids[h], index: h, title: titles[h], isEnabled: enabled[h])
            ids.swapAt(h, ids.count - 1)
            titles.swapAt(h, titles.count - 1)
            enabled.swapAt(h, enabled.count - 1)
            ids.removeLast()
            titles.removeLast()
            enabled.removeLast()
            return event
        }
    }
}
