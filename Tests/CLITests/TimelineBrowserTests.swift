import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// The timeline page in a real browser (headless Chromium, `--dump-dom` after
/// its script ran, state set through the URL fragment): what it shows at a
/// seq is what `show`, `trace`, `diff` and `log` say, and hostile titles stay
/// text. Disabled when no Chromium is found (see ``Chromium``); one browser at
/// a time.
@Suite(.enabled(if: Chromium.path != nil, "needs Chromium: chromium or chromium-browser on the PATH, or LABELREPLAY_CHROMIUM"), .serialized)
struct TimelineBrowserTests {
    /// The demo's log and its page with the view of "tile".
    static func demo(in scratch: Scratch) async throws -> (log: String, page: String) {
        let log = scratch.path("demo.labellog"), page = scratch.path("demo.html")
        let demo = try await CLI.run(["demo", "--log", log])
        try #require(demo.status == 0, "\(demo)")
        let timeline = try await CLI.run(["timeline", log, "--query", "tile", "-o", page])
        try #require(timeline.status == 0, "\(timeline)")
        return (log, page)
    }

    /// Loads `page#fragment` and checks its script ran to the end.
    static func load(_ page: String, _ fragment: String, height: Int = 900, sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> DOM
    {
        let dom = try await Chromium.dom(of: page, fragment: fragment, height: height, sourceLocation: sourceLocation)
        try #require(dom.html.contains("data-ready=\"true\""), "the page's script did not finish: \(dom.element(id: "error")?.text ?? "")")
        return dom
    }

    /// A list row's text as the page writes it: position, short id, title, on/off, version (cells side by side).
    static func listRowText(_ label: [String: Any]) -> String {
        let id = label["id"] as? String ?? ""
        return "\(label["position"] ?? "")\(id.prefix(8))\(label["title"] ?? "")\((label["isEnabled"] as? Bool) == true ? "on" : "off")"
            + "\(label["version"] ?? "")"
    }

    /// A title as the page shows it: control and bidi characters as `\u{…}` (`\n`, `\t`, `\r` by name).
    static func visible(_ title: String) -> String {
        var out = ""
        for scalar in title.unicodeScalars {
            switch scalar.value {
            case 0x0A: out += "\\n"
            case 0x09: out += "\\t"
            case 0x0D: out += "\\r"
            case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029:
                out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func labels(_ show: [String: Any]) -> [[String: Any]] { show["labels"] as? [[String: Any]] ?? [] }

    @Test func atASeqThePageShowsTheListTheViewTheChangedRowAndWhoWasTold() async throws {
        let scratch = try Scratch()
        let (log, page) = try await Self.demo(in: scratch)
        let trace = try await CLI.run(["trace", log, "--query", "tile", "--json"]).jsonLines()
        let records = try await CLI.run(["log", log, "--json"]).jsonLines()
        for seq in [12, 14, 16, 17, 18] {
            let dom = try await Self.load(page, "seq=\(seq)")
            #expect(dom.element(id: "current-seq")?["data-seq"] == String(seq))
            let show = try await CLI.run(["show", log, "--at", String(seq), "--json"]).json()
            let before = try await CLI.run(["show", log, "--at", String(seq - 1), "--json"]).json()
            let view = try await CLI.run(["show", log, "--at", String(seq), "--query", "tile", "--json"]).json()

            // The list: exactly show's rows, in order, with the counts in the heading.
            let rows = dom.section("list", to: "view-heading").rows
            let live = rows.filter { $0["data-gone"] == nil }
            #expect(live.map(\.text) == Self.labels(show).map(Self.listRowText), "seq \(seq)")
            let heading = try #require(dom.element(id: "list-heading"))
            #expect(heading["data-count"] == "\(show["count"] ?? "")", "seq \(seq)")
            #expect(heading["data-enabled"] == String(Self.labels(show).filter { $0["isEnabled"] as? Bool == true }.count))

            // The rows the event changed are highlighted; a removed label is a gone row.
            let record = records[seq - 1]
            var changed: [String] = []
            switch record["kind"] as? String {
            case "added", "renamed", "toggled", "moved", "removed": changed = [record["id"] as? String ?? "?"]
            case "reordered":
                let old = Self.labels(before).map { $0["id"] as? String }, new = Self.labels(show).map { $0["id"] as? String }
                changed = zip(old, new).filter { $0 != $1 }.compactMap(\.1)
            default: break
            }
            #expect(Set(rows.filter { $0["data-changed"] == "true" }.compactMap { $0["data-id"] }) == Set(changed), "seq \(seq)")
            let gone = rows.filter { $0["data-gone"] == "true" }.compactMap { $0["data-id"] }
            #expect(gone == (record["kind"] as? String == "removed" ? changed : []), "seq \(seq)")

            // The view "tile": show --query's rows.
            let viewRows = dom.section("view", to: "side-panel").rows.filter { $0["data-gone"] == nil }
            #expect(viewRows.compactMap { $0["data-id"] } == Self.labels(view).compactMap { $0["id"] as? String }, "seq \(seq)")

            // Who was told: trace's notified dependencies, in its order, and at least trace's not-notified ones.
            let told = dom.section("told", to: "diff-heading").items.filter { $0["data-dep"] != nil }
            let traced = try #require(trace.first { $0["seq"] as? Int == seq })
            let notified = (traced["notified"] as? [[String: Any]] ?? []).compactMap { $0["dependency"] as? String }
            #expect(told.filter { $0["data-notified"] == "true" }.compactMap { $0["data-dep"] } == notified, "seq \(seq)")
            let quiet = Set(told.filter { $0["data-notified"] == "false" }.compactMap { $0["data-dep"] })
            #expect(quiet.isSuperset(of: traced["notNotified"] as? [String] ?? ["?"]) && quiet.isDisjoint(with: notified), "seq \(seq)")

            // The event list marks the current event.
            let current = dom.section("events", to: "state-panel").rows.filter { $0.classes.contains("current") }
            #expect(current.map { $0["data-seq"] } == [String(seq)], "seq \(seq)")
        }
    }

    @Test func theDiffIsWhatDiffSays() async throws {
        let scratch = try Scratch()
        let (log, page) = try await Self.demo(in: scratch)
        let dom = try await Self.load(page, "seq=18&from=12&to=18")
        let diff = try await CLI.run(["diff", log, "12", "18", "--json"]).json()
        let expected = (diff["changes"] as? [[String: Any]] ?? []).map { "\($0["change"] ?? "") \($0["id"] ?? "")" }
        let shown = dom.section("diff", to: "history-heading").rows.map { "\($0["data-change"] ?? "") \($0["data-id"] ?? "")" }
        #expect(shown == expected && expected.count == 5)

        // A long random history: the same counts per kind (moves by the same longest run) and the same first rows.
        let long = scratch.path("long.labellog"), longPage = scratch.path("long.html")
        try TimelineFixtures.randomHistory(at: long, events: 4000, labels: 300, seed: 7)
        try #require(try await CLI.run(["timeline", long, "-o", longPage]).status == 0)
        let longDOM = try await Self.load(longPage, "seq=3600&from=2500&to=3600", height: 1800)
        let longDiff = try await CLI.run(["diff", long, "2500", "3600", "--json"]).json()
        let changes = longDiff["changes"] as? [[String: Any]] ?? []
        let heading = try #require(longDOM.element(id: "diff-heading"))
        for kind in ["added", "removed", "renamed", "toggled", "moved"] {
            #expect(heading["data-\(kind)"] == String(changes.filter { $0["change"] as? String == kind }.count), "\(kind)")
        }
        #expect(changes.contains { $0["change"] as? String == "moved" })
        let rows = longDOM.section("diff", to: "history-heading").rows.map { "\($0["data-change"] ?? "") \($0["data-id"] ?? "")" }
        #expect(rows.count > 10 && rows == changes.prefix(rows.count).map { "\($0["change"] ?? "") \($0["id"] ?? "")" })
    }

    @Test func aLabelsHistoryListsEveryEventIncludingTheEditRefusedAfterItsRemoval() async throws {
        let scratch = try Scratch()
        let (log, page) = try await Self.demo(in: scratch)
        let removed = try await CLI.run(["log", log, "--kind", "removed", "--json"]).jsonLines()
        let tile = try #require(removed.last?["id"] as? String)
        let dom = try await Self.load(page, "seq=10&label=\(tile.prefix(8))")
        let expected = try await CLI.run(["log", log, "--label", tile, "--json"]).jsonLines().compactMap { $0["seq"] as? Int }
        let history = dom.section("history").rows
        #expect(history.compactMap { $0["data-seq"] } == expected.map(String.init) && expected == [11, 14, 17, 18])
        #expect(history.last?["data-kind"] == "rejected" && history.last?.text.contains("label was removed") == true)
        #expect(dom.element(id: "history-heading")?["data-label"] == tile)
        // The selection is in the link to this moment.
        let link = try #require(dom.html.firstMatch(of: /<a id="permalink"[^>]* href="([^"]*)"/)?.1)
        #expect(DOM.text(String(link)) == "#seq=10&label=\(tile)")
    }

    @Test func hostileTitlesActorsAndNotesAreShownAsTextAndNeverRun() async throws {
        let scratch = try Scratch()
        let log = scratch.path("hostile.labellog"), page = scratch.path("hostile.html")
        try TimelineFixtures.hostileHistory(at: log)
        try #require(try await CLI.run(["timeline", log, "--query", "script", "-o", page]).status == 0)
        let actor = "<b onmouseover=alert(1)>actor</b>".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let dom = try await Self.load(page, "seq=10&actor=\(actor)", height: 1200)

        // The script ran under the policy (a wrong hash would have stopped it) and nothing it showed ran.
        #expect(dom.element(id: "events-count")?.text == "10 of 13", "the hostile actor's events, found through the fragment")
        #expect(DOM.text(dom.html.firstMatch(of: /<title>(.*?)<\/title>/)?.1.description ?? "") == "timeline: \(log)")
        #expect(dom.html.components(separatedBy: "<script").count == 3)
        let markup = dom.html.replacing(/<script type="application\/json" id="data">.*?<\/script>/.dotMatchesNewlines(), with: "")
        // Tags only (attribute values emptied: a tooltip may quote a title): no element or attribute from the log.
        let tags = markup.replacing(/"[^"]*"/, with: "\"\"")
        #expect(!tags.contains("<img") && !tags.contains("<b ") && !tags.contains("<!--") && !tags.contains("<svg onload"))
        #expect(tags.firstMatch(of: /<[a-zA-Z][^>]*\son[a-z]+\s*=/) == nil, "an event handler attribute")
        #expect(markup.firstMatch(of: /href="(?!#|data:)/) == nil, "a link out of the page")
        // Control and bidi characters never reach the page raw; they are shown as escapes.
        for scalar in ["\u{202E}", "\u{202C}", "\u{1B}", "\u{2028}", "\u{2029}", "\u{7}"] {
            #expect(!markup.contains(scalar), "raw \(scalar.unicodeScalars.first!.escaped(asASCII: true)) in the page")
        }
        let rows = dom.section("list", to: "view-heading").rows
        #expect(rows.count == 10)
        let shown = rows.map(\.text).joined(separator: "\n")
        for title in TimelineFixtures.hostileTitles {
            #expect(shown.contains(Self.visible(title)), "\(title.debugDescription) is not shown as \(Self.visible(title))")
        }
        #expect(Self.visible("\u{202E}evil\u{202C} rtl") == "\\u{202E}evil\\u{202C} rtl")

        // The policy is enforced: a script that got into the page anyway (inline, or from a file or data: URL) does not run.
        let tampered = scratch.path("tampered.html")
        let injected = [
            #"<script>document.body.dataset.injected = 'inline';</script>"#,
            #"<script src="data:text/javascript,document.body.dataset.injected='data'"></script>"#,
            #"<img src="x" onerror="document.body.dataset.injected = 'handler'">"#
        ].joined()
        try String(contentsOfFile: page, encoding: .utf8).replacing("</body>", with: injected + "</body>")
            .write(toFile: tampered, atomically: true, encoding: .utf8)
        let attacked = try await Self.load(tampered, "seq=10")
        #expect(!attacked.html.contains("data-injected"), "an injected script ran")
    }

    @Test func anEmptyLogsPageLoadsWithAnEmptyList() async throws {
        let scratch = try Scratch()
        let log = scratch.path("empty.labellog"), page = scratch.path("empty.html")
        try makeLog(at: log) { _ in }
        try #require(try await CLI.run(["timeline", log, "-o", page]).status == 0)
        let dom = try await Self.load(page, "seq=5")
        #expect(dom.element(id: "current-seq")?["data-seq"] == "0" && dom.element(id: "list-heading")?["data-count"] == "0")
        #expect(dom.section("list", to: "view-heading").rows.isEmpty && dom.section("events", to: "state-panel").rows.isEmpty)
    }

    @Test func aLongHistoryFoldsToAnySeqFromTheNearestCheckpoint() async throws {
        let scratch = try Scratch()
        let log = scratch.path("long.labellog"), page = scratch.path("long.html")
        try TimelineFixtures.randomHistory(at: log, events: 6000, labels: 600, seed: 3)
        try #require(try await CLI.run(["timeline", log, "-o", page]).status == 0)
        let records = try await CLI.run(["log", log, "--json"]).jsonLines()
        for seq in [1024, 1025, 3333, 6000] {
            let dom = try await Self.load(page, "seq=\(seq)")
            let show = try await CLI.run(["show", log, "--at", String(seq), "--json"]).json()
            let labels = Self.labels(show)
            let heading = try #require(dom.element(id: "list-heading"))
            #expect(heading["data-count"] == String(labels.count), "seq \(seq)")
            #expect(heading["data-enabled"] == String(labels.filter { $0["isEnabled"] as? Bool == true }.count), "seq \(seq)")
            let rows = dom.section("list", to: "view-heading").rows.filter { $0["data-gone"] == nil }
            #expect(rows.count > 10, "seq \(seq)")
            for row in rows {
                let position = try #require(Int(row["data-pos"] ?? ""))
                #expect(row.text == Self.listRowText(labels[position]), "seq \(seq) position \(position)")
            }
            let record = records[seq - 1]
            if let id = record["id"] as? String, record["kind"] as? String != "rejected" {
                #expect(dom.section("list", to: "view-heading").rows.contains { $0["data-id"] == id && $0["data-changed"] == "true" })
            }
        }
    }
}
