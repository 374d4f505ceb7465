import EventLog
import Foundation
import Testing

/// swift-argument-parser's conventions: help, version, usage errors with exit status 64.
@Suite struct HelpAndUsageTests {
    static let commands = [
        "demo", "init", "show", "log", "diff", "trace", "timeline", "verify", "repair", "stats", "head", "prove", "check-proof",
        "export", "import", "copy", "sync", "status", "add", "rename", "toggle", "enable", "disable", "remove", "move", "reverse", "revert",
        "snapshot",
        "index", "archive", "upgrade", "help"
    ]

    @Test func toolHelpListsEveryCommand() async throws {
        for arguments in [["--help"], ["-h"], ["help"], []] {
            let result = try await CLI.run(arguments)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.contains("USAGE: labelreplay <command>"))
            for command in Self.commands { #expect(result.stdout.contains("\n  \(command) "), "\(command) missing from \(arguments)") }
            #expect(result.stderr.isEmpty)
        }
    }

    /// The list above is the one every per-command test runs over: a command the
    /// tool has and the list lacks would go untested (head, prove, check-proof
    /// and upgrade once did), so the tool's own list of commands must be it.
    @Test func theTestedCommandsAreTheToolsCommands() async throws {
        let help = try await CLI.run(["--help"]).stdout
        let section = help.components(separatedBy: "COMMANDS:\n").last?.components(separatedBy: "\n\n").first ?? ""
        let listed = section.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
            return line.split(separator: " ").first.map(String.init)
        }
        #expect(listed == Self.commands, "the tool lists \(listed)")
    }

    @Test(arguments: commands)
    func everyCommandHasHelpThreeWays(_ command: String) async throws {
        let long = try await CLI.run([command, "--help"])
        let short = try await CLI.run([command, "-h"])
        let viaHelp = try await CLI.run(["help", command])
        #expect(long.status == 0 && short.status == 0 && viaHelp.status == 0)
        #expect(long.stdout.hasPrefix("OVERVIEW: "))
        #expect(long.stdout.contains("USAGE: labelreplay \(command)"))
        #expect(long.stdout == short.stdout && long.stdout == viaHelp.stdout)
    }

    @Test func helpWinsOverOtherMistakes() async throws {
        let result = try await CLI.run(["show", "--bogus", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE: labelreplay show"))
    }

    @Test func versionPrintsTheVersion() async throws {
        let result = try await CLI.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("labelreplay 1."))
        #expect(result.stdout.contains("format \(LogFormat.currentVersion)") && LogFormat.currentVersion == 2)
    }

    @Test func unknownCommandIsAUsageError() async throws {
        let result = try await CLI.run(["shwo", "x"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("error: unknown command 'shwo'"))
        #expect(result.stderr.contains("see 'labelreplay --help'"))
        #expect(result.stdout.isEmpty)
    }

    /// Malformed command lines: each exits 64 with `error:`, the usage line and the hint, and touches nothing.
    @Test(arguments: [
        (["show"], "missing expected argument '<log>'"),
        (["show", "L", "--bogus"], "unknown option '--bogus'"),
        (["show", "L", "-x"], "unknown option '-x'"),
        (["show", "L", "extra"], "unexpected argument 'extra'"),
        (["show", "L", "--at", "abc"], "the value 'abc' is invalid for '--at <seq>'"),
        (["show", "L", "--at", "-1"], "the value '-1' is invalid for '--at <seq>'"),
        (["show", "L", "--at=-1"], "the value '-1' is invalid for '--at <seq>'"),
        (["show", "L", "--at", "99999999999999999999999"], "is invalid for '--at <seq>'"),
        (["show", "L", "--at"], "missing value for '--at <seq>'"),
        (["show", "L", "--at", "1", "--at-time", "2026-01-01"], "cannot be used together"),
        (["show", "L", "--at-time", "yesterday"], "is invalid for '--at-time <time>'"),
        (["show", "L", "--json=yes"], "the flag '--json' takes no value"),
        (["log", "L", "--kind", "renamd"], "is invalid for '--kind <kind>'"),
        (["log", "L", "--from", "9", "--to", "3"], "'--from' (9) is after '--to' (3)"),
        (["diff", "L", "9", "3"], "<from> (9) must not be after <to> (3)"),
        (["diff", "L", "1"], "missing expected argument '<to>'"),
        (["rename", "L", "xyz!", "T"], "is invalid for '<id>': expected a label id"),
        (["rename", "L", "abc", "T"], "is invalid for '<id>'"),
        (["move", "L", "abcd", "first"], "is invalid for '<position>'"),
        (["add", "L", "T", "--position", "3000000000"], "is invalid for '--position <position>'"),
        (["add", "L", "T", "--expect-version", "v3"], "is invalid for '--expect-version <version>'"),
        (["revert", "L"], "missing expected argument '<seq>'"),
        (["trace", "L", "--label", "zz"], "is invalid for '--label <id>'"),
        (["help", "nope"], "unknown command 'nope'")
    ])
    func malformedCommandLinesExit64(_ arguments: [String], _ message: String) async throws {
        let scratch = try Scratch()
        let result = try await CLI.run(arguments, in: scratch.url)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.hasPrefix("error: "), "\(result)")
        #expect(result.stderr.contains(message), "\(result)")
        #expect(result.stderr.contains("usage: labelreplay \(arguments[0])"), "\(result)")
        #expect(result.stderr.contains("see 'labelreplay \(arguments[0]) --help'"), "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(scratch.files.isEmpty, "a usage error created \(scratch.files)")
    }

    @Test func aTitleStartingWithADashGoesAfterDoubleDash() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        let refused = try await CLI.run(["add", log, "-draft-"])
        #expect(refused.status == 64)
        let added = try await CLI.run(["add", log, "--actor", "me", "--", "-draft-"])
        #expect(added.status == 0, "\(added)")
        let show = try await CLI.run(["show", log, "--json"])
        #expect(rows(try show.json()) == ["-draft- (on)"])
    }
}
