import EventLog
import Foundation

/// The timeline page: one self-contained HTML file, its markup, style and
/// script fixed (nothing from the log is ever part of them), its data one
/// JSON document in `<script type="application/json" id="data">`.
///
/// The security model: the Content-Security-Policy allows no network access
/// at all (`default-src 'none'`, no `connect-src`), only the one inline script
/// and the one inline style whose SHA-256 hashes it names, images only from
/// `data:` URLs, no `<base>`, no form submission. The data is JSON with every
/// `<`, `>`, `&`, U+2028 and U+2029 written as a `\u` escape, so no title can
/// end the data element or open a comment; the script reads it with
/// `JSON.parse` and builds the page with `createElement` and text nodes only,
/// never HTML from data, so a title is always text.
enum TimelinePage {
    /// The page's script: the parts of ``TimelineScript`` in order.
    static let script = TimelineScript.parts.joined(separator: "\n")

    /// The Content-Security-Policy of the page (the hashes are those of ``script`` and ``TimelineStyle/css``).
    static let policy =
        "default-src 'none'; script-src \(cspSource(script)); style-src \(cspSource(TimelineStyle.css)); "
        + "img-src data:; base-uri 'none'; form-action 'none'"

    /// The whole page for `document`, as UTF-8 bytes.
    static func html(_ document: TimelineDocument) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]  // the same page for the same history, run after run
        let json = escapedForScript(Array(try encoder.encode(document)))
        var page: [UInt8] = []
        page.reserveCapacity(json.count + 64 * 1024)
        page += Array(head.utf8)
        page += Array(TimelineMarkup.body.utf8)
        page += Array("<script type=\"application/json\" id=\"data\">".utf8)
        page += json
        page += Array("</script>\n<script>".utf8)
        page += Array(script.utf8)
        page += Array("</script>\n</body>\n</html>\n".utf8)
        return page
    }

    /// Everything before `<body>`.
    private static var head: String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="\(policy)">
        <meta name="referrer" content="no-referrer">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="generator" content="\(Tool.name) \(Tool.version)">
        <title>labelreplay timeline</title>
        <link rel="icon" href="data:,">
        <style>\(TimelineStyle.css)</style>
        </head>

        """
    }

    /// JSON text made safe inside a `<script>` element: `<`, `>` and `&` (anywhere
    /// they occur, which in JSON is inside strings) and U+2028/U+2029 become `\u` escapes.
    /// The CSP source expression for `text`'s UTF-8 bytes: `'sha256-<base64 digest>'`.
    static func cspSource(_ text: String) -> String {
        "'sha256-" + Data(SHA256.digest(Array(text.utf8)).bytes).base64EncodedString() + "'"
    }

    static func escapedForScript(_ json: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(json.count + json.count / 16)
        var i = 0
        while i < json.count {
            let byte = json[i]
            switch byte {
            case UInt8(ascii: "<"): out += Array(#"\u003c"#.utf8)
            case UInt8(ascii: ">"): out += Array(#"\u003e"#.utf8)
            case UInt8(ascii: "&"): out += Array(#"\u0026"#.utf8)
            case 0xE2 where i + 2 < json.count && json[i + 1] == 0x80 && (json[i + 2] == 0xA8 || json[i + 2] == 0xA9):
                out += Array((json[i + 2] == 0xA8 ? #"\u2028"# : #"\u2029"#).utf8)
                i += 2
            default: out.append(byte)
            }
            i += 1
        }
        return out
    }
}
