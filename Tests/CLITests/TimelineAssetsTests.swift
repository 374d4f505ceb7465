import Foundation
import Testing

@testable import labelreplay

/// The timeline page's script and style sheet are real files
/// (`Sources/labelreplay/Timeline/Assets/*.js`, `timeline.css`: what a
/// JavaScript or CSS tool reads), embedded in the tool by the generated
/// `TimelineAssets.swift`. This test fails while the two differ;
/// `LABELREPLAY_UPDATE_ASSETS=1 swift test --filter TimelineAssetsTests`
/// writes the Swift file again from the assets.
@Suite struct TimelineAssetsTests {
    static let timeline = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/labelreplay/Timeline")
    /// The script's parts, in the page's order (between the prologue and the epilogue).
    static let parts = ["model", "text", "list", "panels", "diff", "charts", "app"]

    static func asset(_ name: String) throws -> String {
        try String(contentsOf: timeline.appendingPathComponent("Assets/\(name)"), encoding: .utf8)
    }

    /// A raw string literal holding `content` (its last newline dropped), indented as the formatter writes it.
    static func literal(_ content: String) -> String {
        var text = content
        if text.hasSuffix("\n") { text.removeLast() }
        let body = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : "        " + $0 }
        return "##\"\"\"\n" + body.joined(separator: "\n") + "\n        \"\"\"##"
    }

    /// `TimelineAssets.swift` as the assets make it.
    static func generated() throws -> String {
        var out = [
            "// Generated from the files in Sources/labelreplay/Timeline/Assets/ (the timeline page's",
            "// script and style sheet, as real .js and .css files); do not edit. After changing them,",
            "// `LABELREPLAY_UPDATE_ASSETS=1 swift test --filter TimelineAssetsTests` writes this file",
            "// again; the test fails while it differs from them.", "", "extension TimelineScript {"
        ]
        for (i, name) in parts.enumerated() {
            out.append("    /// `Assets/\(name).js`.")
            out.append("    static let \(name) = " + literal(try asset("\(name).js")))
            if i < parts.count - 1 { out.append("") }
        }
        out += ["}", "", "extension TimelineStyle {", "    /// `Assets/timeline.css`: the CSS inside the page's `<style>` element."]
        out.append("    static let css = " + literal(try asset("timeline.css")))
        out.append("}")
        return out.joined(separator: "\n") + "\n"
    }

    @Test func theEmbeddedScriptAndStyleAreTheAssetFiles() throws {
        let path = Self.timeline.appendingPathComponent("TimelineAssets.swift")
        let expected = try Self.generated()
        let current = try String(contentsOf: path, encoding: .utf8)
        if current != expected, ProcessInfo.processInfo.environment["LABELREPLAY_UPDATE_ASSETS"] == "1" {
            try expected.write(to: path, atomically: true, encoding: .utf8)
            return
        }
        #expect(
            current == expected,
            "TimelineAssets.swift differs from Timeline/Assets: run LABELREPLAY_UPDATE_ASSETS=1 swift test --filter TimelineAssetsTests")
        // And what the tool embeds is what the files say (the script's parts, the style sheet).
        let embedded = [
            TimelineScript.model, TimelineScript.text, TimelineScript.list, TimelineScript.panels, TimelineScript.diff,
            TimelineScript.charts, TimelineScript.app
        ]
        for (name, part) in zip(Self.parts, embedded) {
            var file = try Self.asset("\(name).js")
            if file.hasSuffix("\n") { file.removeLast() }
            #expect(part == file, "\(name).js")
        }
        var css = try Self.asset("timeline.css")
        if css.hasSuffix("\n") { css.removeLast() }
        #expect(TimelineStyle.css == css)
        #expect(TimelinePage.script.contains(TimelineScript.model) && TimelinePage.script.hasSuffix(TimelineScript.epilogue))
    }
}
