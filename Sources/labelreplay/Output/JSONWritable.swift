import EventLog
import LabelProjection

/// A `--json` value written by hand: ``writeJSON(to:)`` appends exactly the
/// bytes ``JSONLines`` (`JSONEncoder`, sorted keys, slashes unescaped) makes
/// of its `Encodable` form, without an encoder and without a `String` per
/// value, from the pieces `export` uses (`JSONLine`'s key, string, number,
/// id and time writers). The tests encode random values both ways.
protocol JSONWritable: Encodable {
    /// Appends the value's JSON (no line feed) to `out`.
    func writeJSON(to out: inout [UInt8])
}

/// A `--json` value that can be large (a list of 100,000 rows, a diff of
/// them), written in pieces: standard output's buffer is sent between the
/// pieces once it is large, so the value never sits whole in memory (no
/// buffer grown to its size, no page of it touched twice).
protocol JSONPieces: JSONWritable {
    /// Calls `emit` with each piece of the value's JSON, in order; together
    /// they append exactly the bytes of ``JSONWritable/writeJSON(to:)``.
    func writeJSONPieces(_ emit: ((inout [UInt8]) -> Void) -> Void)
}

extension JSONPieces {
    func writeJSON(to out: inout [UInt8]) { writeJSONPieces { piece in piece(&out) } }
}

extension Console {
    /// Writes `value`'s JSON and a newline to standard output, straight into the output buffer.
    func json(_ value: some JSONWritable) {
        line { value.writeJSON(to: &$0) }
    }

    /// Writes `value`'s JSON and a newline to standard output piece by piece,
    /// sending the buffer whenever it is large (``JSONPieces``).
    func json(_ value: some JSONPieces) {
        value.writeJSONPieces { piece in append(piece) }
        line { _ in }
    }
}

extension JSONWritable {
    /// `value`'s JSON as a `String` (for tests and small outputs).
    var jsonText: String {
        var out: [UInt8] = []
        writeJSON(to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

extension JSONLine {
    /// Emits `[`, each value's JSON (with its comma) as a piece of its own, and `]` (``JSONPieces``).
    static func array(_ values: some Sequence<some JSONWritable>, pieces emit: ((inout [UInt8]) -> Void) -> Void) {
        emit { $0.append(0x5B) }
        var first = true
        for value in values {
            let comma = !first
            first = false
            emit { out in
                if comma { out.append(0x2C) }
                value.writeJSON(to: &out)
            }
        }
        emit { $0.append(0x5D) }
    }

    /// Appends `[` each value's JSON `]`.
    static func array(_ values: some Sequence<some JSONWritable>, to out: inout [UInt8]) {
        out.append(0x5B)
        var first = true
        for value in values {
            if !first { out.append(0x2C) }
            first = false
            value.writeJSON(to: &out)
        }
        out.append(0x5D)
    }

    /// Appends `[` each string `]`.
    static func strings(_ values: [String], to out: inout [UInt8]) {
        out.append(0x5B)
        for (i, value) in values.enumerated() {
            if i > 0 { out.append(0x2C) }
            string(value, to: &out)
        }
        out.append(0x5D)
    }
}

/// A record is written as `log --json` and `export` write it.
extension EventRecord: JSONWritable {
    func writeJSON(to out: inout [UInt8]) { JSONLine.write(self, to: &out) }
}

/// `{"enabledOnly", "text"}`, as ``ViewQuery`` encodes itself.
extension ViewQuery: JSONWritable {
    func writeJSON(to out: inout [UInt8]) {
        var first = true
        JSONLine.key("enabledOnly", first: &first, to: &out)
        JSONLine.bool(enabledOnly, to: &out)
        JSONLine.key("text", first: &first, to: &out)
        JSONLine.string(text, to: &out)
        JSONLine.close(first, to: &out)
    }
}
