import Foundation

/// Golden files: expected outputs kept in `Tests/CLITests/Golden/` (found
/// from this file's path, so no SwiftPM resources are involved), compared
/// byte for byte. `LABELREPLAY_UPDATE_GOLDEN=1` rewrites them from the
/// actual output instead of failing.
enum Golden {
    /// `Tests/CLITests/Golden/`.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    /// The environment variable that rewrites the golden files.
    static let updateVariable = "LABELREPLAY_UPDATE_GOLDEN"

    /// Whether this run rewrites the golden files (`LABELREPLAY_UPDATE_GOLDEN=1`).
    static var updating: Bool { ProcessInfo.processInfo.environment[updateVariable] == "1" }

    /// The names of the files in the directory.
    static var files: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted() }

    /// Compares `actual` with the golden file `name`, byte for byte: `nil` if
    /// they are equal (or the file was just rewritten, when updating), else a
    /// message naming the file and `what` produced the output, with a line diff
    /// and the command (`swift test --filter regenerate`) that rewrites the files.
    static func mismatch(_ actual: String, file name: String, what: String, regenerate filter: String) throws -> String? {
        let url = directory.appendingPathComponent(name)
        let golden = FileManager.default.contents(atPath: url.path)
        if let golden, [UInt8](golden) == Array(actual.utf8) { return nil }
        if updating {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: url, options: .atomic)
            print("rewrote Tests/CLITests/Golden/\(name) from `\(what)`")
            return nil
        }
        let heading: String
        if let golden {
            heading =
                "Tests/CLITests/Golden/\(name) differs from the output of `\(what)` (- golden file, + actual output):\n"
                + diff(String(decoding: golden, as: UTF8.self), actual)
        } else {
            heading = "Tests/CLITests/Golden/\(name) is missing (the output of `\(what)` has nothing to compare with)"
        }
        return heading + "\nIf the new output is intended, rewrite the golden files and review their diff:\n"
            + "    \(updateVariable)=1 swift test --filter \(filter)"
    }

    /// A line diff of `old` and `new`: changed lines marked `-` and `+`, with
    /// two lines of context around each change (`…` for unchanged lines left out).
    static func diff(_ old: String, _ new: String) -> String {
        let a = old.components(separatedBy: "\n"), b = new.components(separatedBy: "\n")
        // Longest common subsequence, by suffix: lcs[i][j] for a[i...] and b[j...].
        var lcs = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : max(lcs[i + 1][j], lcs[i][j + 1])
            }
        }
        var script: [(mark: Character, line: String)] = []
        var i = 0, j = 0
        while i < a.count || j < b.count {
            if i < a.count, j < b.count, a[i] == b[j] {
                script.append((" ", a[i]))
                i += 1
                j += 1
            } else if i < a.count, j == b.count || lcs[i + 1][j] >= lcs[i][j + 1] {
                script.append(("-", a[i]))
                i += 1
            } else {
                script.append(("+", b[j]))
                j += 1
            }
        }
        let changed = script.indices.filter { script[$0].mark != " " }
        if changed.isEmpty { return "  (the lines are the same; the bytes differ in line endings or encoding)" }
        var out: [String] = []
        var shownUpTo = -1
        for index in changed {
            let from = max(index - 2, shownUpTo + 1), to = min(index + 2, script.count - 1)
            if from > shownUpTo + 1 { out.append("  …") }
            if from <= to {
                for k in from...to { out.append("\(script[k].mark) \(visible(script[k].line))") }
                shownUpTo = max(shownUpTo, to)
            }
        }
        if shownUpTo < script.count - 1 { out.append("  …") }
        return out.joined(separator: "\n")
    }

    /// A line with trailing spaces and control characters made visible.
    private static func visible(_ line: String) -> String {
        var text = ""
        for scalar in line.unicodeScalars {
            switch scalar {
            case "\t": text += "\\t"
            case "\r": text += "\\r"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: text += "\\u{\(String(scalar.value, radix: 16))}"
            default: text.unicodeScalars.append(scalar)
            }
        }
        let trailing = text.reversed().prefix { $0 == " " }.count
        return trailing == 0 ? text : text.dropLast(trailing) + String(repeating: "·", count: trailing)
    }
}
