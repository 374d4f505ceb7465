import Foundation

/// JSON output: one compact object per line, keys sorted, slashes unescaped.
///
/// Every `--json` output and `export` goes through this encoder, so field
/// order and escaping are the same everywhere (JSON escapes control
/// characters in titles itself).
struct JSONLines {
    private let encoder: JSONEncoder

    init() {
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    }

    /// The JSON text of `value`, on one line.
    func line(_ value: some Encodable) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
