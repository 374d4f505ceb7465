import EventLog
import Foundation
import LabelProjection

/// The data the timeline page embeds, built record by record from a
/// ``NotifyingReplay``: compact, columnar, a few bytes per event.
///
/// - `strings`: every distinct text (title, actor, note, rejected command and
///   reason) once, deduplicated by its exact UTF-8 bytes (the store's notion of
///   "the same title"), so the page compares titles by index.
/// - `labels`: the ids, 32 hex digits each, in order of first appearance.
/// - `events`: one base64 stream of unsigned LEB128 varints, per event: a head
///   (`kind | note << 3 | sameActor << 4 | flag << 5 | told << 6`, where kind is
///   the index in ``kinds``, flag an isEnabled value, told the notified
///   dependencies: 1 membership, 2 title, 4 isEnabled, 8 view, 16 enabled count),
///   the time in ms after the previous event (zigzag), the actor (0 none, else
///   string + 1) unless the same as the previous event's, the note's string,
///   the kind's fields (added: label, title, index; renamed: label, old, new;
///   toggled: label; removed: label, index, title; moved: label, from, to;
///   reordered: count, labels; rejected: label + 1 or 0, command, reason), and,
///   when the view was told, its row changes (count, then `type | label << 2`
///   with type 0 inserted, 1 removed, 2 updated, 3 moved, and `at`, or `from`, `to`).
/// - `base`: the list before the first event (labels; and `title << 1 | isEnabled`,
///   version per label); `checkpoints`: the order of the list (labels) after every
///   K-th event, K = max(1,024, length / 2), computed by the real fold, so the
///   page folds at most K events to reach any seq.
struct TimelineData {
    /// The names of the kinds, in the order of their codes in the event stream.
    static let kinds = LabelEvent.Kind.allCases.map(\.rawValue)
    /// The fewest events between two checkpoints.
    static let checkpointSpacing = 1024
    /// Times beyond this many ms from 1970 are clamped in the stream (deltas stay exact in JavaScript's doubles).
    static let timeLimit: Int64 = 2_000_000_000_000_000

    private(set) var strings: [String] = []
    private var stringIndex: [ExactString: Int] = [:]
    private var isTitle: [Bool] = []
    private(set) var labels: [LabelID] = []
    private var labelIndex: [LabelID: Int] = [:]
    private var stream: [UInt8] = []
    private var base = TimelineCheckpoint(seq: 0, event: -1, order: "")
    private var baseStates = ""
    private var checkpoints: [TimelineCheckpoint] = []
    private var timeTexts: [String: String] = [:]
    private var t0: Int64?
    private var lastTime: Int64 = 0
    private var lastActor: Int?
    private var sinceCheckpoint = 0
    private var maxCount = 0
    /// The seq of the first event, and the number of events.
    private(set) var firstSeq: UInt64 = 1
    private(set) var eventCount = 0

    /// Records the list before the first event (the fold of every record before `--from`).
    mutating func begin(with list: LabelList) {
        firstSeq = list.lastSeq + 1
        var order: [UInt8] = [], states: [UInt8] = []
        for label in list.labels {
            Self.varint(UInt64(intern(label.id)), to: &order)
            Self.varint(UInt64(intern(title: label.title)) << 1 | (label.isEnabled ? 1 : 0), to: &states, then: label.version)
        }
        base = TimelineCheckpoint(seq: list.lastSeq, event: -1, order: Data(order).base64EncodedString())
        baseStates = Data(states).base64EncodedString()
        maxCount = list.count
    }

    /// Appends one event: `list` is the state right after it.
    mutating func append(_ step: NotifyingReplay.Step, list: LabelList) {
        let record = step.record
        precondition(record.seq == firstSeq + UInt64(eventCount), "records come in seq order without gaps")
        let kind = Self.kinds.firstIndex(of: record.event.kind.rawValue)!
        var told = 0
        var viewChanges: [ViewChange] = []
        for notification in step.notifications {
            switch notification.dependency {
            case .membership: told |= 1
            case .title: told |= 2
            case .isEnabled: told |= 4
            case .view:
                told |= 8
                viewChanges += notification.viewChanges
            case .enabledCount: told |= 16
            case .label, .everything: break
            }
        }
        let actor = record.actor.map { intern($0) }
        let note = record.note.map { intern($0) }
        var flag = false
        var fields: [UInt64] = []
        switch record.event {
        case .added(let id, let title, let isEnabled, let index):
            fields = [UInt64(intern(id)), UInt64(intern(title: title)), UInt64(index)]
            flag = isEnabled
        case .renamed(let id, let old, let new):
            fields = [UInt64(intern(id)), UInt64(intern(title: old)), UInt64(intern(title: new))]
        case .toggled(let id, let isEnabled):
            fields = [UInt64(intern(id))]
            flag = isEnabled
        case .removed(let id, let index, let title, let isEnabled):
            fields = [UInt64(intern(id)), UInt64(index), UInt64(intern(title: title))]
            flag = isEnabled
        case .moved(let id, let from, let to):
            fields = [UInt64(intern(id)), UInt64(from), UInt64(to)]
        case .reordered(let order):
            fields = [UInt64(order.count)] + order.map { UInt64(intern($0)) }
        case .rejected(let id, let command, let reason):
            fields = [id.map { UInt64(intern($0) + 1) } ?? 0, UInt64(intern(command)), UInt64(intern(reason))]
        }
        let sameActor = eventCount > 0 && actor == lastActor
        let head = kind | (note != nil ? 8 : 0) | (sameActor ? 16 : 0) | (flag ? 32 : 0) | told << 6
        Self.varint(UInt64(head), to: &stream)
        Self.varint(zigzag(time(record.timestamp)), to: &stream)
        if !sameActor { Self.varint(actor.map { UInt64($0 + 1) } ?? 0, to: &stream) }
        if let note { Self.varint(UInt64(note), to: &stream) }
        for field in fields { Self.varint(field, to: &stream) }
        if told & 8 != 0 {
            Self.varint(UInt64(viewChanges.count), to: &stream)
            for change in viewChanges { encode(change) }
        }
        lastActor = actor
        eventCount += 1
        maxCount = max(maxCount, list.count)
        sinceCheckpoint += 1
        if sinceCheckpoint >= max(Self.checkpointSpacing, list.count / 2) {
            var order: [UInt8] = []
            for id in list.ids { Self.varint(UInt64(intern(id)), to: &order) }
            checkpoints.append(TimelineCheckpoint(seq: record.seq, event: eventCount - 1, order: Data(order).base64EncodedString()))
            sinceCheckpoint = 0
        }
    }

    /// The document to embed; `query` is the view the page shows, `selected` the label it opens with.
    func document(path: String, header: LogHeader, query: ViewQuery?, selected: LabelID?) -> TimelineDocument {
        var matches: String?
        if let query {
            var bits = [UInt8](repeating: 0, count: (strings.count + 7) / 8)
            for (i, text) in strings.enumerated() where isTitle[i] && query.matches(title: text) { bits[i / 8] |= 1 << UInt8(i % 8) }
            matches = Data(bits).base64EncodedString()
        }
        let hex = labels.map { $0.description.replacingOccurrences(of: "-", with: "") }.joined()
        return TimelineDocument(
            format: 1, generator: "\(Tool.name) \(Tool.version)", log: path, logID: header.logID.description, firstSeq: firstSeq,
            eventCount: eventCount, t0: t0 ?? 0, kinds: Self.kinds, query: query, strings: strings, titleMatches: matches,
            labels: hex, events: Data(stream).base64EncodedString(), base: base, baseStates: baseStates, checkpoints: checkpoints,
            timeTexts: timeTexts, maxCount: maxCount, selected: selected.flatMap { labelIndex[$0] })
    }

    private mutating func encode(_ change: ViewChange) {
        let label = UInt64(intern(change.id))
        switch change {
        case .inserted(_, let at): Self.varint(label << 2 | 0, to: &stream, then: UInt64(at))
        case .removed(_, let at): Self.varint(label << 2 | 1, to: &stream, then: UInt64(at))
        case .updated(_, let at): Self.varint(label << 2 | 2, to: &stream, then: UInt64(at))
        case .moved(_, let from, let to):
            Self.varint(label << 2 | 3, to: &stream, then: UInt64(from))
            Self.varint(UInt64(to), to: &stream)
        }
    }

    /// The time of the event in ms after the previous one's (the first's after `t0`).
    private mutating func time(_ timestamp: EventTimestamp) -> Int64 {
        let ms = timestamp.millisecondsSince1970
        let clamped = min(max(ms, -Self.timeLimit), Self.timeLimit)
        if clamped != ms { timeTexts[String(eventCount)] = timestamp.iso8601 }
        if t0 == nil {
            t0 = clamped
            lastTime = clamped
        }
        defer { lastTime = clamped }
        return clamped - lastTime
    }

    private func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: value << 1 ^ value >> 63) }

    private mutating func intern(_ id: LabelID) -> Int {
        if let index = labelIndex[id] { return index }
        labelIndex[id] = labels.count
        labels.append(id)
        return labels.count - 1
    }

    private mutating func intern(_ text: String) -> Int {
        let key = ExactString(text)
        if let index = stringIndex[key] { return index }
        stringIndex[key] = strings.count
        strings.append(text)
        isTitle.append(false)
        return strings.count - 1
    }

    private mutating func intern(title: String) -> Int {
        let index = intern(title)
        isTitle[index] = true
        return index
    }

    /// Appends `value` as an unsigned LEB128 varint (then `next`, if given).
    static func varint(_ value: UInt64, to bytes: inout [UInt8], then next: UInt64? = nil) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
        if let next { varint(next, to: &bytes) }
    }
}

/// A text compared and hashed by its exact UTF-8 bytes (no Unicode normalization), as the store compares titles.
struct ExactString: Hashable {
    let text: String
    init(_ text: String) { self.text = text }
    static func == (a: ExactString, b: ExactString) -> Bool { String.sameBytes(a.text, b.text) }
    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// The list's order at one seq (`event` is the index of the last event folded into it, -1 for the base).
struct TimelineCheckpoint: Encodable {
    let seq: UInt64
    let event: Int
    /// Base64 varints: the label indices in list order.
    let order: String
}

/// What the page's `<script type="application/json" id="data">` holds (see ``TimelineData``).
struct TimelineDocument: Encodable {
    let format: Int
    let generator: String
    let log: String
    let logID: String
    let firstSeq: UInt64
    let eventCount: Int
    let t0: Int64
    let kinds: [String]
    let query: ViewQuery?
    let strings: [String]
    /// Base64 bitset over `strings`: 1 where a title matches the query's text (`ViewQuery.matches(title:)`).
    let titleMatches: String?
    let labels: String
    let events: String
    let base: TimelineCheckpoint
    let baseStates: String
    let checkpoints: [TimelineCheckpoint]
    /// The exact times of events whose time is beyond ``TimelineData/timeLimit`` (by event index).
    let timeTexts: [String: String]
    /// The longest the list gets in the range.
    let maxCount: Int
    /// The label index the page opens with selected.
    let selected: Int?
}
