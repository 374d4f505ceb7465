import Foundation
import Testing

/// The data a timeline page embeds, read back the way docs/CLI.md describes
/// it — independently of the page's own script — so tests can check the page
/// holds what the log holds.
struct TimelineDocument {
    /// One decoded event.
    struct Event: Equatable {
        var kind: String
        var label: String?
        var actor: String?
        var note: String?
        /// The notified dependencies, in the order membership, title, isEnabled, view, enabledCount.
        var told: [String]
        /// The event's texts (titles, command, reason) in the order the stream holds them.
        var texts: [String]
        /// The event's numbers (index, from, to) in the order the stream holds them.
        var numbers: [Int]
    }

    let object: [String: Any]
    let strings: [String]
    let labels: [String]
    let events: [Event]
    /// The raw `<script type="application/json" id="data">` text.
    let rawJSON: String

    /// Reads the data element of `html` and decodes its event stream.
    init(html: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let open = "<script type=\"application/json\" id=\"data\">"
        let start = try #require(html.range(of: open), "no data element", sourceLocation: sourceLocation)
        let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex), sourceLocation: sourceLocation)
        rawJSON = String(html[start.upperBound..<end.lowerBound])
        object = try #require(try JSONSerialization.jsonObject(with: Data(rawJSON.utf8)) as? [String: Any], sourceLocation: sourceLocation)
        strings = try #require(object["strings"] as? [String], sourceLocation: sourceLocation)
        let hex = try #require(object["labels"] as? String, sourceLocation: sourceLocation)
        labels = stride(from: 0, to: hex.count, by: 32).map { offset in
            let h = Array(hex.dropFirst(offset).prefix(32))
            return [h[0..<8], h[8..<12], h[12..<16], h[16..<20], h[20..<32]].map { String($0) }.joined(separator: "-")
        }
        let kinds = try #require(object["kinds"] as? [String], sourceLocation: sourceLocation)
        let count = try #require(object["eventCount"] as? Int, sourceLocation: sourceLocation)
        var reader = Varints(try #require(Data(base64Encoded: object["events"] as? String ?? ""), sourceLocation: sourceLocation))
        var decoded: [Event] = []
        var actor: String?
        let names = ["membership", "title", "isEnabled", "view", "enabledCount"]
        for _ in 0..<count {
            let head = reader.next()
            let told = names.enumerated().filter { head >> 6 & (1 << $0.offset) != 0 }.map(\.element)
            _ = reader.next()  // time
            if head & 16 == 0 {
                let a = reader.next()
                actor = a == 0 ? nil : strings[a - 1]
            }
            let note = head & 8 != 0 ? strings[reader.next()] : nil
            var event = Event(kind: kinds[head & 7], actor: actor, note: note, told: told, texts: [], numbers: [])
            switch event.kind {
            case "added":
                event.label = labels[reader.next()]
                event.texts = [strings[reader.next()]]
                event.numbers = [reader.next()]
            case "renamed":
                event.label = labels[reader.next()]
                event.texts = [strings[reader.next()], strings[reader.next()]]
            case "toggled":
                event.label = labels[reader.next()]
            case "removed":
                event.label = labels[reader.next()]
                event.numbers = [reader.next()]
                event.texts = [strings[reader.next()]]
            case "moved":
                event.label = labels[reader.next()]
                event.numbers = [reader.next(), reader.next()]
            case "reordered":
                event.numbers = (0..<reader.next()).map { _ in reader.next() }
            default:  // rejected
                let l = reader.next()
                event.label = l == 0 ? nil : labels[l - 1]
                event.texts = [strings[reader.next()], strings[reader.next()]]
            }
            if told.contains("view") {
                for _ in 0..<reader.next() {
                    let moved = reader.next() & 3 == 3
                    _ = reader.next()  // at, or from
                    if moved { _ = reader.next() }  // to
                }
            }
            decoded.append(event)
        }
        #expect(reader.done, "bytes after the last event", sourceLocation: sourceLocation)
        events = decoded
    }

    /// Unsigned LEB128 varints.
    struct Varints {
        let bytes: [UInt8]
        var offset = 0
        init(_ data: Data) { bytes = [UInt8](data) }
        var done: Bool { offset == bytes.count }
        mutating func next() -> Int {
            var value = 0, shift = 0
            while true {
                let byte = bytes[offset]
                offset += 1
                value |= Int(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
        }
    }
}
