import Foundation
import Testing

/// Every help text, byte for byte, against a golden file in
/// Tests/CLITests/Golden/ (as swift-argument-parser keeps its help tests): a
/// change to any command's help shows up as a diff to review. After an
/// intended change, rewrite the files with
/// `LABELREPLAY_UPDATE_GOLDEN=1 swift test --filter HelpGolden`.
@Suite struct HelpGoldenTests {
    /// The help invocations and their golden files: the tool's help (both
    /// ways), then `<command> --help` for every command, each at 80 columns
    /// (`help-log.txt`) and at 50 (`help-log-50.txt`): help wraps to the
    /// terminal's width, taken from `COLUMNS` here (issue 16, item 4).
    static let cases: [(file: String, arguments: [String], columns: Int)] = [80, 50].flatMap { columns in
        let suffix = columns == 80 ? "" : "-\(columns)"
        return [("help-labelreplay\(suffix).txt", ["--help"], columns), ("help-labelreplay\(suffix).txt", ["help"], columns)]
            + HelpAndUsageTests.commands.map { ("help-\($0)\(suffix).txt", [$0, "--help"], columns) }
    }

    @Test(arguments: cases)
    func helpMatchesItsGoldenFile(file: String, arguments: [String], columns: Int) async throws {
        let result = try await CLI.run(arguments, environment: ["COLUMNS": String(columns), "LINES": "24"])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        let lines = result.stdout.split(separator: "\n")
        let tooWide = lines.filter { $0.count > columns && !$0.hasPrefix("  labelreplay ") }  // examples are not wrapped
        #expect(tooWide.isEmpty, "lines wider than \(columns) columns: \(tooWide)")
        let what = "COLUMNS=\(columns) " + (["labelreplay"] + arguments).joined(separator: " ")
        if let mismatch = try Golden.mismatch(result.stdout, file: file, what: what, regenerate: "HelpGolden") {
            Issue.record(Comment(rawValue: mismatch))
        }
    }

    /// No golden file is left over from a command that is gone (rewriting removes them).
    @Test func everyGoldenFileBelongsToAHelpText() throws {
        let expected = Set(Self.cases.map(\.file))
        let stale = Golden.files.filter { $0.hasPrefix("help-") && !expected.contains($0) }
        if Golden.updating {
            for name in stale { try FileManager.default.removeItem(at: Golden.directory.appendingPathComponent(name)) }
            return
        }
        #expect(
            stale.isEmpty,
            "golden files without a help text: \(stale); remove them or run \(Golden.updateVariable)=1 swift test --filter HelpGolden")
    }
}
