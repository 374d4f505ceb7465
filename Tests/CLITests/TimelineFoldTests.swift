import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

/// Issue 25, items 5 and 6: the timeline page folds and prints exactly as the
/// store and `log` do, also for events that change nothing and for times
/// outside the years 0000–9999. In headless Chromium, as ``TimelineBrowserTests``.
@Suite(.enabled(if: Chromium.path != nil, "needs Chromium: chromium or chromium-browser on the PATH, or LABELREPLAY_CHROMIUM"), .serialized)
struct TimelineFoldTests {
    /// Every kind of event that changes nothing the fold accepts (a rename to a byte-identical title,
    /// a reorder to the current order, a rejected edit, with and without a label), between real changes
    /// (a rename to a canonically equivalent title is one: its bytes differ).
    static func noOpHistory(at path: String) throws -> Int {
        let a = testID(1), b = testID(2), c = testID(3)
        let events: [LabelEvent] = [
            .added(id: a, title: "Amber", isEnabled: true, index: 0),
            .added(id: b, title: "Cobalt", isEnabled: false, index: 1),
            .added(id: c, title: "Caf\u{E9}", isEnabled: true, index: 2),
            .renamed(id: a, oldTitle: "Amber", newTitle: "Amber"),
            .reordered(order: [a, b, c]),
            .renamed(id: c, oldTitle: "Caf\u{E9}", newTitle: "Cafe\u{301}"),
            .rejected(id: b, command: "toggle", reason: "a test"),
            .renamed(id: b, oldTitle: "Cobalt", newTitle: "Cobalt"),
            .toggled(id: b, isEnabled: true),
            .reordered(order: [c, b, a]),
            .removed(id: b, index: 1, title: "Cobalt", isEnabled: true),
            .rejected(id: nil, command: "add", reason: "another test"),
            .added(id: b, title: "Cobalt", isEnabled: false, index: 0),
            .renamed(id: b, oldTitle: "Cobalt", newTitle: "Cobalt"),
            .moved(id: a, from: 2, to: 0),
            .reordered(order: [a, b, c]),
            .renamed(id: c, oldTitle: "Cafe\u{301}", newTitle: "Cafe\u{301}")
        ]
        let writer = try LogWriter.open(path: path, options: .init(durability: .noSync, createIfMissing: true))
        defer { writer.close() }
        try writer.append(events.map { LogEntry($0, actor: "setup") })
        return events.count
    }

    @Test func atEverySeqOfEventsThatChangeNothingThePageShowsWhatShowAtSays() async throws {
        let scratch = try Scratch()
        let log = scratch.path("noop.labellog"), page = scratch.path("noop.html")
        let count = try Self.noOpHistory(at: log)
        try #require(try await CLI.run(["timeline", log, "-o", page]).status == 0)
        let noOps: Set<Int> = [4, 5, 7, 8, 12, 14, 16, 17]
        for seq in 1...count {
            let dom = try await TimelineBrowserTests.load(page, "seq=\(seq)")
            let show = try await CLI.run(["show", log, "--at", String(seq), "--json"]).json()
            let labels = TimelineBrowserTests.labels(show)
            let rows = dom.section("list", to: "view-heading").rows
            let live = rows.filter { $0["data-gone"] == nil }
            #expect(live.map(\.text) == labels.map(TimelineBrowserTests.listRowText), "seq \(seq)")
            let heading = try #require(dom.element(id: "list-heading"))
            #expect(heading["data-count"] == String(labels.count), "seq \(seq)")
            #expect(heading["data-enabled"] == String(labels.filter { $0["isEnabled"] as? Bool == true }.count), "seq \(seq)")
            if noOps.contains(seq) {
                #expect(!rows.contains { $0["data-changed"] == "true" }, "seq \(seq) changed nothing: \(rows.map(\.text))")
            }
        }
        // The versions the page shows are the fold's: a no-op rename keeps the label's version.
        let last = try await CLI.run(["show", log, "--json"]).json()
        #expect(TimelineBrowserTests.labels(last).map { $0["version"] as? Int } == [1, 13, 6])
    }

    /// Times at the edges: ordinary ones, the years -1, 0, 9999 and 10000, the page's clamp (±2e15 ms)
    /// and beyond it, JavaScript's `Date` range (±8.64e15 ms) and beyond it, and `Int64.min`/`max` ms.
    static let edgeTimes: [Int64] = [
        ms("2026-12-03T20:27:34.210Z"), ms("1969-12-31T23:59:59.999Z"), 0, ms("0000-01-01T00:00:00.000Z"),
        ms("-0001-12-31T23:59:59.999Z"), ms("-0001-01-01T00:00:00.000Z"), ms("9999-12-31T23:59:59.999Z"),
        ms("+10000-01-01T00:00:00.000Z"), ms("-10000-03-01T12:00:00.001Z"), ms("+99999-12-31T23:59:59.999Z"),
        2_000_000_000_000_000, -2_000_000_000_000_000, 2_000_000_000_000_001, -2_000_000_000_000_001,
        8_640_000_000_000_001, -8_640_000_000_000_001, .max, .min, ms("2024-02-29T00:00:00.000Z")
    ]

    static func ms(_ text: String) -> Int64 { EventTimestamp(iso8601: text)!.millisecondsSince1970 }

    @Test func everyTimeIsWrittenAsLogWritesItAlsoOutsideTheYears0000To9999() async throws {
        let scratch = try Scratch()
        let log = scratch.path("times.labellog"), page = scratch.path("times.html")
        let writer = try LogWriter.open(path: log, options: .init(durability: .noSync, createIfMissing: true))
        try writer.append(
            Self.edgeTimes.enumerated().map { i, time in
                LogEntry(
                    .added(id: testID(i + 1), title: "t\(i)", isEnabled: true, index: i),
                    timestamp: EventTimestamp(millisecondsSince1970: time), actor: "clock")
            })
        writer.close()
        try #require(try await CLI.run(["timeline", log, "-o", page]).status == 0)
        let times = try await CLI.run(["log", log, "--json"]).jsonLines().map { $0["time"] as? String ?? "?" }
        #expect(times.count == Self.edgeTimes.count)
        #expect(
            times[7] == "+10000-01-01T00:00:00.000Z" && times[4] == "-0001-12-31T23:59:59.999Z" && times[3] == "0000-01-01T00:00:00.000Z")
        for (i, time) in times.enumerated() {
            let dom = try await TimelineBrowserTests.load(page, "seq=\(i + 1)")
            let line = try #require(dom.element(id: "current-event")).text
            #expect(line.hasPrefix(time + "  "), "seq \(i + 1): the page wrote \(line.prefix(40).debugDescription), log \(time)")
            if i == 0 {
                let summary = dom.element(id: "summary")?.text ?? ""
                #expect(summary.contains(times[0] + " – " + times[times.count - 1]), "\(summary)")
            }
        }
    }
}
