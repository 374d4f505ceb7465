import EventLog

/// The deterministic stream of realistic label events that both sides store.
///
/// The stream is a consistent history of one label list (it can be folded
/// by a projection): it keeps a model of the list and draws each event from
/// what is live, with this mix of kinds (see ``Mix``):
/// ~40% `renamed`, ~30% `toggled`, ~15% `added`, ~10% `moved`, ~5% `removed`.
/// While the list is too short for a kind (no label yet, or fewer than two
/// for a move), an `added` is drawn instead.
///
/// - Titles: 8–40 characters, some non-ASCII (``TitleGenerator``).
/// - Positions: 70% of adds append, the rest insert anywhere; 75% of moves are
///   drags of 1–5 places, the rest go anywhere; removals are anywhere.
/// - Envelope: explicit timestamps (1 ms – 4 s apart, from 2026-01-05), an
///   actor on 30% of events, a note on 3%.
///
/// Every entry carries its timestamp, so both sides store identical records.
/// The same seed gives the same stream on every machine.
struct EventStream {
    /// The percentage of each kind; they add up to 100.
    enum Mix {
        static let renamed = 40
        static let toggled = 30
        static let added = 15
        static let moved = 10
        static let removed = 5
    }

    /// The default seed of every workload.
    static let defaultSeed: UInt64 = 0x1A_BE15_EED5

    private static let actors = ["alice", "bob", "chloé", "dmitri", "sync-service", "ios-7f3a", "mac-02c1"]
    private static let startTime: Int64 = 1_767_571_200_000  // 2026-01-05T00:00:00Z

    private var rng: SeededGenerator
    private var time = EventStream.startTime
    private var ids: [LabelID] = []
    private var titles: [String] = []
    private var enabled: [Bool] = []
    private var order = ChunkedList()
    private var live: [Int32] = []
    private var livePosition: [Int32] = []
    /// Once this many labels are live, a drawn `added` becomes a `removed` (`nil`: no limit).
    private let liveLimit: Int?

    /// A stream whose events are determined by `seed`. With `liveLimit`, the
    /// list stops growing at about that many live labels: an `added` drawn
    /// while at least `liveLimit` labels are live is a `removed` instead (so a
    /// long history keeps a list of that size, adds and removes in balance).
    init(seed: UInt64 = EventStream.defaultSeed, liveLimit: Int? = nil) {
        rng = SeededGenerator(seed: seed)
        self.liveLimit = liveLimit
    }

    /// The number of live labels after the events drawn so far.
    var liveCount: Int { live.count }

    /// The next `count` entries.
    mutating func next(_ count: Int) -> [LogEntry] {
        var entries: [LogEntry] = []
        entries.reserveCapacity(count)
        for _ in 0..<count { entries.append(next()) }
        return entries
    }

    /// The next entry.
    mutating func next() -> LogEntry {
        time += Int64(rng.between(1...4_000))
        let event = nextEvent()
        let actor = rng.percent(30) ? Self.actors[rng.below(Self.actors.count)] : nil
        let note = rng.percent(3) ? "batch edit #\(rng.below(10_000))" : nil
        return LogEntry(event, timestamp: EventTimestamp(millisecondsSince1970: time), actor: actor, note: note)
    }

    /// The first `count` entries of the stream for `seed`.
    static func entries(count: Int, seed: UInt64 = defaultSeed) -> [LogEntry] {
        var stream = EventStream(seed: seed)
        return stream.next(count)
    }

    /// The first `count` entries of the stream for `seed`, cut into batches of `batchSize`.
    static func batches(count: Int, batchSize: Int, seed: UInt64 = defaultSeed) -> [[LogEntry]] {
        var stream = EventStream(seed: seed)
        var batches: [[LogEntry]] = []
        var left = count
        while left > 0 {
            let n = min(batchSize, left)
            batches.append(stream.next(n))
            left -= n
        }
        return batches
    }

    private mutating func nextEvent() -> LabelEvent {
        // Thresholds on a roll of 0..<100: renamed | toggled | added | moved | removed.
        let toggledFrom = Mix.renamed
        let addedFrom = toggledFrom + Mix.toggled
        let movedFrom = addedFrom + Mix.added
        let removedFrom = movedFrom + Mix.moved
        let roll = rng.below(100)
        switch roll {
        case ..<toggledFrom where !live.isEmpty: return renamed()
        case toggledFrom..<addedFrom where !live.isEmpty: return toggled()
        case movedFrom..<removedFrom where order.count >= 2: return moved()
        case removedFrom... where !live.isEmpty: return removed()
        default:
            if let liveLimit, !live.isEmpty, live.count >= liveLimit { return removed() }
            return added()
        }
    }

    private mutating func added() -> LabelEvent {
        let id = randomID()
        let title = TitleGenerator.title(using: &rng)
        let isEnabled = rng.percent(85)
        let index = rng.percent(70) ? order.count : rng.below(order.count + 1)
        let handle = Int32(ids.count)
        ids.append(id)
        titles.append(title)
        enabled.append(isEnabled)
        livePosition.append(Int32(live.count))
        live.append(handle)
        order.insert(handle, at: index)
        return .added(id: id, title: title, isEnabled: isEnabled, index: index)
    }

    private mutating func renamed() -> LabelEvent {
        let h = Int(live[rng.below(live.count)])
        let old = titles[h]
        let new = TitleGenerator.title(using: &rng)
        titles[h] = new
        return .renamed(id: ids[h], oldTitle: old, newTitle: new)
    }

    private mutating func toggled() -> LabelEvent {
        let h = Int(live[rng.below(live.count)])
        enabled[h].toggle()
        return .toggled(id: ids[h], isEnabled: enabled[h])
    }

    private mutating func moved() -> LabelEvent {
        let count = order.count
        let from = rng.below(count)
        var to: Int
        if rng.percent(75) {
            let distance = rng.between(1...5)
            to = rng.percent(50) ? from - distance : from + distance
            to = min(max(to, 0), count - 1)
        } else {
            to = rng.below(count)
        }
        if to == from { to = from == 0 ? 1 : from - 1 }
        let handle = order.remove(at: from)
        order.insert(handle, at: to)
        return .moved(id: ids[Int(handle)], from: from, to: to)
    }

    private mutating func removed() -> LabelEvent {
        let index = rng.below(order.count)
        let handle = order.remove(at: index)
        let h = Int(handle)
        // Swap-remove from the live set.
        let position = Int(livePosition[h])
        let last = live[live.count - 1]
        live[position] = last
        livePosition[Int(last)] = Int32(position)
        live.removeLast()
        livePosition[h] = -1
        return .removed(id: ids[h], index: index, title: titles[h], isEnabled: enabled[h])
    }

    private mutating func randomID() -> LabelID {
        ProjectionFixtures.randomID(&rng)
    }
}
