import Foundation
import Testing

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Headless Chromium for the timeline's browser tests: `$LABELREPLAY_CHROMIUM`,
/// else `chromium` or `chromium-browser` on the `PATH` (Debian's `chromium`
/// package, which `.ci/run` installs). Without one the browser suites are
/// disabled, so `swift test` passes on a machine without a browser.
enum Chromium {
    /// The browser's path, if one was found.
    static let path: String? = locate()

    private static func locate() -> String? {
        let environment = ProcessInfo.processInfo.environment
        if let given = environment["LABELREPLAY_CHROMIUM"], !given.isEmpty { return given }  // a wrong path fails the tests, loudly
        let directories = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        for name in ["chromium", "chromium-browser"] {
            for directory in directories where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
                return "\(directory)/\(name)"
            }
        }
        return nil
    }

    /// The page at `file` (with `fragment`, e.g. `seq=17&label=…`) as the DOM
    /// stands after its script ran, serialized (`--dump-dom`). The window is
    /// `width` × `height` CSS pixels; the browser is killed after `limit`.
    static func dom(
        of file: String, fragment: String = "", width: Int = 1400, height: Int = 900, limit: Duration = .seconds(180),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> DOM {
        let url = URL(fileURLWithPath: file).absoluteString + (fragment.isEmpty ? "" : "#" + fragment)
        let output = try await run(["--window-size=\(width),\(height)", "--dump-dom", url], limit: limit, sourceLocation: sourceLocation)
        return DOM(html: output)
    }

    /// Saves a PNG screenshot of `file#fragment` at `width` × `height`.
    static func screenshot(
        of file: String, fragment: String = "", to png: String, width: Int = 1400, height: Int = 900,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let url = URL(fileURLWithPath: file).absoluteString + (fragment.isEmpty ? "" : "#" + fragment)
        _ = try await run(
            ["--window-size=\(width),\(height)", "--screenshot=\(png)", url], limit: .seconds(180), sourceLocation: sourceLocation)
    }

    /// Runs the browser headless with its own throw-away profile; returns its standard output.
    private static func run(_ arguments: [String], limit: Duration, sourceLocation: SourceLocation) async throws -> String {
        let browser = try #require(path, "no Chromium", sourceLocation: sourceLocation)
        let scratch = try Scratch()
        let out = scratch.path("stdout")
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: browser)
        process.arguments =
            [
                "--headless", "--disable-gpu", "--hide-scrollbars", "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--user-data-dir=\(scratch.path("profile"))"
            ] + (geteuid() == 0 ? ["--no-sandbox"] : []) + arguments
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while process.isRunning && clock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning {
            Issue.record("chromium \(arguments.last ?? "") still running after \(limit): killed", sourceLocation: sourceLocation)
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        return try String(contentsOfFile: out, encoding: .utf8)
    }
}

/// A serialized DOM, read by the stable ids, classes and data attributes the timeline page documents.
struct DOM {
    /// One element: its attributes and its text (tags removed, entities decoded).
    struct Element {
        let attributes: [String: String]
        let text: String
        var classes: Set<String> { Set((attributes["class"] ?? "").split(separator: " ").map(String.init)) }
        subscript(_ name: String) -> String? { attributes[name] }
    }

    let html: String

    /// The part of the DOM from the element with id `start` to the next with id `end` (or the end).
    func section(_ start: String, to end: String? = nil) -> DOM {
        guard let from = html.range(of: "id=\"\(start)\"") else { return DOM(html: "") }
        let rest = html[from.lowerBound...]
        guard let end, let to = rest.range(of: "id=\"\(end)\"") else { return DOM(html: String(rest)) }
        return DOM(html: String(rest[..<to.lowerBound]))
    }

    /// The `<div class="row …">` rows (rows hold no nested `div`).
    var rows: [Element] { elements(/<div class="row [^"]*"[^>]*>.*?<\/div>/.dotMatchesNewlines()) }

    /// The `<li>` items.
    var items: [Element] { elements(/<li(?:\s[^>]*)?>.*?<\/li>/.dotMatchesNewlines()) }

    /// The element with id `id` (its own start tag and text up to its end tag of the same name).
    func element(id: String) -> Element? {
        guard let match = html.firstMatch(of: try! Regex("<([a-z0-9]+)[^>]* id=\"\(id)\"[^>]*>")) else { return nil }
        let tag = match.output[1].substring.map(String.init) ?? "div"
        let rest = html[match.range.upperBound...]
        let inner = rest.range(of: "</\(tag)>").map { rest[..<$0.lowerBound] } ?? ""
        return Element(attributes: Self.attributes(String(html[match.range])), text: Self.text(String(inner)))
    }

    private func elements(_ pattern: some RegexComponent) -> [Element] {
        html.matches(of: pattern).map { match in
            let whole = String(html[match.range])
            let tagEnd = whole.firstIndex(of: ">").map { whole.index(after: $0) } ?? whole.endIndex
            return Element(attributes: Self.attributes(String(whole[..<tagEnd])), text: Self.text(String(whole[tagEnd...])))
        }
    }

    private static func attributes(_ tag: String) -> [String: String] {
        var found: [String: String] = [:]
        for match in tag.matches(of: /([a-zA-Z-]+)="([^"]*)"/) { found[String(match.1)] = decode(String(match.2)) }
        return found
    }

    /// `html` without its tags, entities decoded.
    static func text(_ html: String) -> String { decode(html.replacing(/<[^>]*>/, with: "")) }

    private static func decode(_ text: String) -> String {
        text.replacing("&lt;", with: "<").replacing("&gt;", with: ">").replacing("&quot;", with: "\"").replacing("&#39;", with: "'")
            .replacing("&nbsp;", with: "\u{A0}").replacing("&amp;", with: "&")
    }
}
