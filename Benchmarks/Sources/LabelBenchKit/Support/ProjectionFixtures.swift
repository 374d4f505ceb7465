import EventLog
import LabelProjection

/// Building projections and consistent single-kind event batches for the projection workloads.
enum ProjectionFixtures {
    /// The timestamp of the record at `seq` (any fixed, increasing clock will do).
    static func timestamp(_ seq: UInt64) -> EventTimestamp {
        EventTimestamp(millisecondsSince1970: 1_767_571_200_000 + Int64(seq))
    }

    /// A random version-4 UUID from `rng` (like `UUID()`, but reproducible).
    static func randomID(_ rng: inout SeededGenerator) -> LabelID {
        let a = rng.next()
        let b = rng.next()
        func byte(_ v: UInt64, _ k: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: v >> (8 * k)) }
        return LabelID(
            bytes: (
                byte(a, 0), byte(a, 1), byte(a, 2), byte(a, 3), byte(a, 4), byte(a, 5),
                (byte(a, 6) & 0x0F) | 0x40, byte(a, 7),
                (byte(b, 0) & 0x3F) | 0x80, byte(b, 1), byte(b, 2), byte(b, 3),
                byte(b, 4), byte(b, 5), byte(b, 6), byte(b, 7)
            ))
    }

    /// The `added` record at `seq` appending a new label (realistic title, 85% enabled) at `index`.
    static func addedRecord(seq: UInt64, index: Int, rng: inout SeededGenerator) -> EventRecord {
        let id = randomID(&rng)
        let title = TitleGenerator.title(using: &rng)
        return EventRecord(
            seq: seq, timestamp: timestamp(seq),
            event: .added(id: id, title: title, isEnabled: rng.percent(85), index: index))
    }

    /// A list of `labels` labels folded from `labels` appending `added` records; equal seeds give equal lists.
    static func buildList(labels: Int, seed: UInt64) throws -> LabelList {
        var rng = SeededGenerator(seed: seed)
        var list = LabelList()
        for i in 0..<labels {
            try list.apply(addedRecord(seq: UInt64(i + 1), index: i, rng: &rng))
        }
        return list
    }

    /// The event kinds of `apply-*`.
    enum Kind: String, CaseIterable {
        case added, renamed, toggled, moved, removed, reordered
    }

    /// The next record of `kind`, consistent with `list`, which it is applied to (so that a
    /// batch of them stays consistent). `rng` draws positions, ids and titles.
    static func nextRecord(_ kind: Kind, on list: inout LabelList, rng: inout SeededGenerator) throws -> EventRecord {
        let seq = list.lastSeq + 1
        let event: LabelEvent
        switch kind {
        case .added:
            event = .added(
                id: randomID(&rng), title: TitleGenerator.title(using: &rng), isEnabled: rng.percent(85),
                index: rng.below(list.count + 1))
        case .renamed:
            let label = list[rng.below(list.count)]
            event = .renamed(id: label.id, oldTitle: label.title, newTitle: TitleGenerator.title(using: &rng))
        case .toggled:
            let label = list[rng.below(list.count)]
            event = .toggled(id: label.id, isEnabled: !label.isEnabled)
        case .moved:
            let from = rng.below(list.count)
            var to = rng.below(list.count - 1)
            if to >= from { to += 1 }
            event = .moved(id: list.id(at: from), from: from, to: to)
        case .removed:
            let index = rng.below(list.count)
            let label = list[index]
            event = .removed(id: label.id, index: index, title: label.title, isEnabled: label.isEnabled)
        case .reordered:
            // Rotate by one: every position changes, the worst case of a reorder.
            var ids = list.ids
            ids.append(ids.removeFirst())
            event = .reordered(order: ids)
        }
        let record = EventRecord(seq: seq, timestamp: timestamp(seq), event: event)
        try list.apply(record)
        return record
    }

    /// A cheap fingerprint of a list (counts, versions, and a mix of every live id and title length), O(n).
    static func digest(_ list: LabelList) -> String {
        var mix: UInt64 = 0
        for label in list.labels {
            let b = label.id.uuid.uuid
            mix = (mix &* 31) &+ UInt64(b.0) &+ UInt64(b.9) << 8 &+ UInt64(label.title.utf8.count) << 16 &+ (label.isEnabled ? 1 << 24 : 0)
        }
        return "\(list.count) labels, \(list.enabledCount) enabled, last seq \(list.lastSeq), list version \(list.listVersion), mix \(mix)"
    }
}
