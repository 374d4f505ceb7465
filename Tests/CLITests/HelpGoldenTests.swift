import Foundation
import Testing

/// Every help text, byte for byte, against a golden file in
/// Tests/CLITests/Golden/ (as swift-argument-parser keeps its help tests): a
/// change to any command's help shows up as a diff to review. After an
/// intended change, rewrite the files with
/// `LABELREPLAY_UPDATE_GOLDEN=1 swift test --filter HelpGolden`.
@Suite struct HelpGoldenTests {
    /// The help invocations and their golden files: the tool's help (both
    /// ways), then `<command> --help` for every command.
    static let cases: [(file: String, arguments: [String])] =
        [("help-labelreplay.txt", ["--help"]), ("help-labelreplay.txt", ["help"])]
        + HelpAndUsageTests.commands.map { ("help-\($0).txt", [$0, "--help"]) }

    @Test(arguments: cases)
    func helpMatchesItsGoldenFile(file: String, arguments: [String]) async throws {
        // Help is wrapped at 80 columns whatever the terminal; pin the width anyway, so the output cannot depend on it.
        let result = try await CLI.run(arguments, environment: ["COLUMNS": "80", "LINES": "24"])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        let what = (["labelreplay"] + arguments).joined(separator: " ")
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
