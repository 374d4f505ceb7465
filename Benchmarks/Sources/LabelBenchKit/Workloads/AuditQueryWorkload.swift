import CSQLite
import EventLog

/// Workloads `audit-label`, `audit-actor` and `audit-window`: the audit
/// questions of `labelreplay log --label/--actor/--since --until` on a
/// 1,000,000-event history (quick: 200,000; 10,000,000 with `--big`).
///
/// Ours, timed: open a `LogReader`, load and check the history index
/// (`HistoryIndexFile.load`), and read the matching records through it
/// (`LogReader.forEachRecord(matching:using:)`, every record read from the log
/// and checked, decoded into `EventRecord`s). The peer: a fresh connection to
/// the SQLite table with indexes on `label_id`, `actor` and `time`, the same
/// question as one `SELECT … ORDER BY seq`, each row decoded into the same
/// `EventRecord`s. Both from a warm page cache; both answers must be equal
/// (the stream has no reorders, so "about the label" is `label_id = ?` there).
/// Metric: ms per query; target: ≤ 50 ms and at least as fast as SQLite.
final class AuditQueryWorkload: Workload {
    /// The question asked.
    enum Question: String, CaseIterable {
        /// Every record about one label.
        case label
        /// One actor's records over one day.
        case actor
        /// Every record in a 10-minute window.
        case window
    }

    let metric = Metric.milliseconds
    let question: Question
    private let fixture: AuditFixture
    private var answers: [Side: [UInt64]] = [:]
    private var matched = 0

    /// One workload per question, all reading one shared fixture.
    static func all(for settings: BenchSettings) -> [AuditQueryWorkload] {
        var sizes = [settings.size(full: 1_000_000, quick: 200_000)]
        if settings.big { sizes.append(10_000_000) }
        return sizes.flatMap { size in
            // Only the workloads the run selects share the fixture (it is removed after the last of them).
            let selected = Question.allCases.filter { settings.includes(name(of: $0, size: size)) }
            let fixture = AuditFixture(eventCount: size, seed: settings.seed, users: selected.count)
            return selected.map { AuditQueryWorkload(question: $0, fixture: fixture) }
        }
    }

    /// The id of the workload asking `question` of `size` events.
    static func name(of question: Question, size: Int) -> String {
        "audit-\(question.rawValue)" + (size >= 10_000_000 ? "-10m" : "")
    }

    init(question: Question, fixture: AuditFixture) {
        self.question = question
        self.fixture = fixture
    }

    var eventCount: Int { fixture.eventCount }
    var id: String { Self.name(of: question, size: eventCount) }
    var title: String {
        switch question {
        case .label: "log --label ID, \(eventCount.grouped) events"
        case .actor: "log --actor A over 1 day, \(eventCount.grouped) events"
        case .window: "log over a 10-minute window, \(eventCount.grouped) events"
        }
    }
    var peer: String? { "SQLite, indexed" }
    var target: Target { Target(maxRatio: 1, maxOurs: 50, metric: .milliseconds, text: "≤ 50 ms & ≥ 1×") }
    var notes: [String] { ["\(question.rawValue): \(matched.grouped) matching records, the same on both sides"] }

    private let actor = "alice"
    private var window: (since: Int64, until: Int64) {
        let middle = fixture.startTime + Int64(eventCount) * 1_000  // events are ~2 s apart: about the middle
        return question == .actor ? (middle, middle + 86_400_000) : (middle, middle + 600_000)
    }

    private var query: HistoryQuery {
        switch question {
        case .label: HistoryQuery(labels: [fixture.label])
        case .actor:
            HistoryQuery(
                actors: [actor], since: EventTimestamp(millisecondsSince1970: window.since),
                until: EventTimestamp(millisecondsSince1970: window.until))
        case .window:
            HistoryQuery(
                since: EventTimestamp(millisecondsSince1970: window.since), until: EventTimestamp(millisecondsSince1970: window.until))
        }
    }

    func prepare(_ context: BenchContext) throws { try fixture.acquire(context) }

    func finish(_ context: BenchContext) { fixture.release(context) }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        var records: [EventRecord] = []
        let elapsed = try Statistics.time {
            records = side == .ours ? try ours() : try sqlite()
        }
        let seqs = records.map(\.seq)
        answers[side] = seqs
        matched = seqs.count
        if let a = answers[.ours], let b = answers[.sqlite], a != b {
            throw BenchError("\(id): the index found \(a.count) records, SQLite \(b.count)")
        }
        return Statistics.seconds(elapsed) * 1e3
    }

    private func ours() throws -> [EventRecord] {
        let reader = try LogReader(path: fixture.logPath)
        guard let index = HistoryIndexFile.load(for: reader).index else { throw BenchError("\(id): the history index is not usable") }
        var records: [EventRecord] = []
        try reader.forEachRecord(matching: query, using: index) { record in
            records.append(record)
            return true
        }
        return records
    }

    private func sqlite() throws -> [EventRecord] {
        let db = try SQLiteConnection(path: fixture.databasePath)
        defer { db.close() }
        let columns = "seq, time, kind, label_id, title, old_title, is_enabled, idx, from_idx, to_idx, actor, note, order_ids, reason"
        let statement: SQLiteStatement
        switch question {
        case .label:
            statement = try db.prepare("SELECT \(columns) FROM events WHERE label_id = ?1 ORDER BY seq")
            withUnsafeBytes(of: fixture.label.uuid.uuid) { statement.bind(blob: $0, at: 1) }
        case .actor:
            statement = try db.prepare("SELECT \(columns) FROM events WHERE actor = ?1 AND time BETWEEN ?2 AND ?3 ORDER BY seq")
            statement.bind(actor, at: 1)
            statement.bind(window.since, at: 2)
            statement.bind(window.until, at: 3)
        case .window:
            statement = try db.prepare("SELECT \(columns) FROM events WHERE time BETWEEN ?1 AND ?2 ORDER BY seq")
            statement.bind(window.since, at: 1)
            statement.bind(window.until, at: 2)
        }
        var records: [EventRecord] = []
        while try statement.step() { records.append(try SQLiteEventReader.decode(statement)) }
        return records
    }
}
