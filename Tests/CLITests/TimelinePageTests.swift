import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// `timeline` without a browser (these always run): the page is one file
/// whose policy forbids the network and allows only its own script and style,
/// nothing from the log becomes markup, the embedded data round-trips the log
/// (and `trace`'s notifications), and the command's usage and failures.
@Suite struct TimelinePageTests {
    /// Writes the page of `log` (extra arguments after it) and returns its text.
    static func page(_ log: String, _ arguments: [String] = [], in scratch: Scratch) async throws -> String {
        let out = scratch.path("page-\(UUID().uuidString).html")
        let result = try await CLI.run(["timeline", log, "-o", out] + arguments)
        try #require(result.status == 0, "\(result)")
        #expect(result.stdout.contains("wrote \(out): "), "\(result)")
        return try String(contentsOfFile: out, encoding: .utf8)
    }

    /// The text of every `<tag>…</tag>` element of `html`, in order.
    static func elements(_ tag: String, in html: String) -> [String] {
        var found: [String] = []
        var rest = html[...]
        while let open = rest.range(of: "<\(tag)"), let close = rest.range(of: "</\(tag)>", range: open.upperBound..<rest.endIndex) {
            let start = rest.range(of: ">", range: open.upperBound..<close.lowerBound)?.upperBound ?? open.upperBound
            found.append(String(rest[start..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return found
    }

    /// SHA-256 of `text` as the CSP writes it (base64), by the system's own tool (an independent implementation).
    static func systemSHA256(_ text: String) throws -> String {
        let scratch = try Scratch()
        let file = scratch.path("input")
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        for tool in [["sha256sum"], ["shasum", "-a", "256"]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = tool + [file]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { continue }
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            guard process.terminationStatus == 0, let hex = output.split(separator: " ").first, hex.count == 64 else { continue }
            let bytes = stride(from: 0, to: 64, by: 2).map { UInt8(hex.dropFirst($0).prefix(2), radix: 16)! }
            return Data(bytes).base64EncodedString()
        }
        throw NoHashTool()
    }

    /// Neither `sha256sum` nor `shasum` could be run.
    struct NoHashTool: Error {}

    @Test func thePageIsOneFileWhosePolicyAllowsNoNetworkAndOnlyItsOwnScriptAndStyle() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try TraceAndRevertTests.history(at: log)
        let html = try await Self.page(log, ["--query", "ring"], in: scratch)

        let policy = try #require(html.firstMatch(of: /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/)?.1)
        let directives = Dictionary(
            uniqueKeysWithValues: policy.split(separator: ";").map { part -> (String, String) in
                let words = part.split(separator: " ", maxSplits: 1)
                return (String(words[0]), words.count > 1 ? String(words[1]) : "")
            })
        #expect(directives["default-src"] == "'none'")
        #expect(directives["connect-src"] == nil && directives["img-src"] == "data:" && directives["base-uri"] == "'none'")
        let scripts = Self.elements("script", in: html)
        try #require(scripts.count == 2, "the data element and the script, nothing else")
        let styles = Self.elements("style", in: html)
        try #require(styles.count == 1)
        #expect(directives["script-src"] == "'sha256-\(try Self.systemSHA256(scripts[1]))'")
        #expect(directives["style-src"] == "'sha256-\(try Self.systemSHA256(styles[0]))'")
        let beforePolicy = html.components(separatedBy: "<meta http-equiv=\"Content-Security-Policy\"")[0]
        #expect(beforePolicy.contains("<head>") && !beforePolicy.contains("<script") && !beforePolicy.contains("<style"))

        // Nothing is fetched: no src or href but the data: icon, no CSS url() or @import, no fetch or XHR in the script.
        let fetching = html.matches(of: /\s(src|href|action|srcset)\s*=\s*"([^"]*)"/).map { "\($0.1)=\($0.2)" }
        #expect(fetching == ["href=data:,"])
        #expect(!styles[0].contains("url(") && !styles[0].contains("@import"))
        for api in ["fetch(", "XMLHttpRequest", "WebSocket", "EventSource", "sendBeacon", "import(", "innerHTML", "outerHTML", "eval("] {
            #expect(!scripts[1].contains(api), "the script uses \(api)")
        }
    }

    @Test func hostileTitlesActorsAndNotesStayInsideTheDataAsEscapedJSON() async throws {
        let scratch = try Scratch()
        let log = scratch.path("hostile.labellog")
        try TimelineFixtures.hostileHistory(at: log)
        let html = try await Self.page(log, ["--query", "script"], in: scratch)
        let document = try TimelineDocument(html: html)

        // The data element holds no character that could end it, open a comment or break a line in a script.
        for character in ["<", ">", "&", "\u{2028}", "\u{2029}"] {
            #expect(!document.rawJSON.contains(character), "raw \(character.unicodeScalars.first!.escaped(asASCII: true)) in the data")
        }
        #expect(html.components(separatedBy: "<script").count == 3 && html.components(separatedBy: "</script").count == 3)
        let markup = html.replacing(document.rawJSON, with: "")
        #expect(!markup.contains("<img") && !markup.contains("onerror") && !markup.contains("<!--") && !markup.contains("<b "))
        #expect(!markup.contains("pwned") && !markup.contains("alert(") && markup.count + document.rawJSON.count == html.count)

        // ...and yet every text round-trips byte for byte.
        for title in TimelineFixtures.hostileTitles {
            #expect(document.strings.contains { String.sameBytes($0, title) }, "lost \(title.debugDescription)")
        }
        #expect(document.strings.contains("<b onmouseover=alert(1)>actor</b>") && document.strings.contains("\u{202E}rotca"))
        #expect(document.strings.contains("</script><!-- \(TimelineFixtures.hostileTitles[0])"))
        let rejected = try #require(document.events.last)
        #expect(rejected.kind == "rejected" && rejected.label == testID(2).description)
        #expect(rejected.texts[0].contains("</script>again"))
    }

    @Test func theDataHoldsEveryRecordAndWhatTraceSaysWasNotified() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try TraceAndRevertTests.history(at: log)
        async let pageText = Self.page(log, ["--query", "ring"], in: scratch)
        async let logged = CLI.run(["log", log, "--json"])
        async let traced = CLI.run(["trace", log, "--query", "ring", "--json"])
        let document = try TimelineDocument(html: try await pageText)
        let records = try await logged.jsonLines()
        let trace = try await traced.jsonLines()
        try #require(document.events.count == records.count && records.count == 7)
        #expect(document.object["firstSeq"] as? Int == 1)

        for (event, record) in zip(document.events, records) {
            let seq = record["seq"] as? Int ?? 0
            #expect(event.kind == record["kind"] as? String, "seq \(seq)")
            #expect(event.label == record["id"] as? String, "seq \(seq)")
            #expect(event.actor == record["actor"] as? String && event.note == record["note"] as? String, "seq \(seq)")
            let texts = ["oldTitle", "title", "command", "reason"].compactMap { record[$0] as? String }
            #expect(Set(event.texts) == Set(texts), "seq \(seq)")
        }
        for (event, traced) in zip(document.events, trace) {
            let notified = (traced["notified"] as? [[String: Any]] ?? []).compactMap { $0["dependency"] as? String }
            #expect(event.told == notified, "seq \(traced["seq"] ?? "?")")
        }
        // A rename reached only its title and the view; the refused edit reached nobody.
        #expect(document.events[3].told == ["title", "view"] && document.events[6].told.isEmpty)
    }

    @Test func fromToAndLabelChooseTheRangeItsStartingListAndTheSelection() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try TraceAndRevertTests.history(at: log)
        let html = try await Self.page(log, ["--from", "4", "--to", "6", "--label", testID(2).description], in: scratch)
        let document = try TimelineDocument(html: html)
        #expect(document.object["firstSeq"] as? Int == 4 && document.events.map(\.kind) == ["renamed", "toggled", "removed"])
        // The page starts from the list after seq 3 (folded, not embedded as events): Grid, Tile, Ring.
        let base = try #require(document.object["base"] as? [String: Any])
        #expect(base["seq"] as? Int == 3)
        var order = TimelineDocument.Varints(try #require(Data(base64Encoded: base["order"] as? String ?? "")))
        let ids = (0..<3).map { _ in document.labels[order.next()] }
        #expect(ids == [testID(1), testID(2), testID(3)].map(\.description) && order.done)
        let selected = try #require(document.object["selected"] as? Int)
        #expect(document.labels[selected] == testID(2).description)
    }

    @Test func usageErrorsExit64AndFailuresNameWhatFailed() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try TraceAndRevertTests.history(at: log)
        async let backwards = CLI.run(["timeline", log, "--from", "5", "--to", "3"])
        async let zero = CLI.run(["timeline", log, "--from", "0"])
        async let empty = CLI.run(["timeline", log, "-o", ""])
        async let missing = CLI.run(["timeline", scratch.path("nope.labellog"), "-o", scratch.path("x.html")])
        async let past = CLI.run(["timeline", log, "--from", "9", "-o", scratch.path("y.html")])
        async let unwritable = CLI.run(["timeline", log, "-o", scratch.path("no/such/dir/page.html")])
        for result in [try await backwards, try await zero, try await empty] {
            #expect(result.status == 64 && result.stdout.isEmpty, "\(result)")
            #expect(result.stderr.contains("usage: labelreplay timeline"), "\(result)")
        }
        let noLog = try await missing
        #expect(noLog.status == 1 && noLog.stderr.contains("nope.labellog: no such file"), "\(noLog)")
        let pastEnd = try await past
        #expect(pastEnd.status == 1 && pastEnd.stderr.contains("there is no seq 9: the log ends at seq 7"), "\(pastEnd)")
        let cannot = try await unwritable
        #expect(cannot.status == 1 && cannot.stderr.contains("no/such/dir/page.html: cannot write the page"), "\(cannot)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("x.html")))
    }

    @Test func withoutOutputThePageIsNamedAfterTheLogAndDashWritesStandardOutput() async throws {
        let scratch = try Scratch()
        let log = scratch.path("labels.labellog")
        try TraceAndRevertTests.history(at: log)
        let named = try await CLI.run(["timeline", log], in: scratch.url)
        #expect(named.status == 0, "\(named)")
        let written = try String(contentsOfFile: scratch.path("labels.timeline.html"), encoding: .utf8)
        #expect(named.stdout.contains("wrote labels.timeline.html: 7 events (seq 1–7)"))
        let piped = try await CLI.run(["timeline", log, "-o", "-"])
        #expect(piped.status == 0 && piped.stdout.hasPrefix("<!DOCTYPE html>") && piped.stdout.hasSuffix("</html>\n"))
        #expect(try TimelineDocument(html: piped.stdout).events.count == 7 && piped.stdout.count == written.count)
    }

    /// `-o` names a device or a pipe (`/dev/null`): the page is written into
    /// it, never renamed over it (which replaced `/dev/null` with a regular
    /// file); through a symbolic link, the file it names is replaced and the
    /// link kept; a directory is refused, naming it.
    @Test func anOutputThatIsAPipeALinkOrADirectoryIsWrittenThroughOrRefused() async throws {
        let scratch = try Scratch()
        let log = scratch.path("labels.labellog")
        try TraceAndRevertTests.history(at: log)
        let expected = try await CLI.run(["timeline", log, "-o", "-"]).stdout

        let fifo = scratch.path("page.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        // The reader blocks in `open` until a writer comes; should the pipe be
        // renamed over instead, none comes, so it is waited for with a timeout.
        let reader = PipeReader(path: fifo)
        let piped = try await CLI.run(["timeline", log, "-o", fifo])
        #expect(piped.status == 0, "\(piped)")
        let page = await Task.detached { reader.text(within: .seconds(30)) }.value
        #expect(page == expected, "the page did not come through the pipe")
        var status = stat()
        #expect(stat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "the pipe was replaced by another kind of file")

        let target = scratch.path("real.html"), link = scratch.path("link.html")
        try "old".write(toFile: target, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let linked = try await CLI.run(["timeline", log, "-o", link])
        #expect(linked.status == 0, "\(linked)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == expected)

        let directory = try await CLI.run(["timeline", log, "-o", scratch.url.path])
        #expect(directory.status == 1 && directory.stderr.contains("\(scratch.url.path): is a directory"), "\(directory)")
        #expect(!directory.stderr.contains(".tmp"), "\(directory)")
    }

    /// The same history makes the same page, byte for byte, run after run (the
    /// embedded JSON's keys were in hash order, which changes per process).
    @Test func theSameHistoryMakesTheSamePageEveryRun() async throws {
        let scratch = try Scratch()
        let log = scratch.path("labels.labellog")
        try TimelineFixtures.hostileHistory(at: log)
        var pages: Set<String> = []
        for _ in 0..<4 {
            let piped = try await CLI.run(["timeline", log, "-o", "-"])
            #expect(piped.status == 0, "\(piped)")
            pages.insert(piped.stdout)
        }
        #expect(pages.count == 1, "\(pages.count) different pages from one history")
    }

    @Test func anEmptyLogMakesAPageWithNoEvents() async throws {
        let scratch = try Scratch()
        let log = scratch.path("empty.labellog"), out = scratch.path("empty.html")
        try makeLog(at: log) { _ in }
        let result = try await CLI.run(["timeline", log, "-o", out])
        #expect(result.status == 0 && result.stdout.contains("no events (the log is empty)"), "\(result)")
        let document = try TimelineDocument(html: try String(contentsOfFile: out, encoding: .utf8))
        #expect(document.events.isEmpty && document.labels.isEmpty && document.object["firstSeq"] as? Int == 1)
    }

    @Test func aLongHistoryCostsAtMostOneHundredBytesPerEvent() async throws {
        let scratch = try Scratch()
        let log = scratch.path("long.labellog")
        let events = 8000
        try TimelineFixtures.randomHistory(at: log, events: events, labels: 800)
        let out = scratch.path("long.html")
        let result = try await CLI.run(["timeline", log, "-o", out])
        try #require(result.status == 0, "\(result)")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: out)[.size] as? Int)
        let document = try TimelineDocument(html: try String(contentsOfFile: out, encoding: .utf8))
        #expect(document.events.count == events)
        #expect((document.object["checkpoints"] as? [Any])?.count ?? 0 >= events / 1024 - 1, "a checkpoint every 1,024 events or so")
        #expect(Double(size) / Double(events) <= 100, "\(size) bytes for \(events) events")
    }
}

/// Reads a FIFO to its end on a thread of its own, started at once.
private final class PipeReader: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var read: String?

    init(path: String) {
        Thread.detachNewThread { [self] in
            let text = FileHandle(forReadingAtPath: path).flatMap { try? $0.readToEnd() }.map { String(decoding: $0, as: UTF8.self) }
            lock.withLock { read = text }
            done.signal()
        }
    }

    /// What was read, once the writer closed the pipe; `nil` if that takes longer than `timeout`.
    func text(within timeout: Duration) -> String? {
        guard done.wait(timeout: .now() + .milliseconds(Int(timeout.components.seconds * 1000))) == .success else { return nil }
        return lock.withLock { read }
    }
}
