import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// Issue 16, items 5, 6, 9 and 11: did-you-mean, shell completion, one error
/// style, and the smaller things (default actor, demo hints, stats wording,
/// one word per concept, `--at`).
@Suite struct UsageConventionsTests {
    @Test(arguments: [
        (["log", "L", "--lable", "x"], "unknown option '--lable' (did you mean '--label'?)"),
        (["show", "L", "--qeury", "x"], "unknown option '--qeury' (did you mean '--query'?)"),
        (["log", "L", "--hepl"], "unknown option '--hepl' (did you mean '--help'?)"),
        (["log", "L", "-j"], "unknown option '-j' (did you mean '--json'?)"),
        (["lgo"], "unknown command 'lgo' (did you mean 'log'?)"),
        (["hlep"], "unknown command 'hlep' (did you mean 'help'?)"),
        (["Show", "L"], "unknown command 'Show' (did you mean 'show'?)"),
        (["sho"], "unknown command 'sho' (did you mean 'show'?)"),
        (["--verison"], "unknown option '--verison' (did you mean '--version'?)"),
        (["help", "trcae"], "unknown command 'trcae' (did you mean 'trace'?)"),
        (["add", "L", "T", "--at", "0"], "unknown option '--at' ('--at' is now '--position'")
    ])
    func mistakesGetADidYouMean(_ arguments: [String], _ message: String) async throws {
        let result = try await CLI.run(arguments)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.hasPrefix("error: " + message), "\(result)")
    }

    @Test func farOffWordsGetNoSuggestion() async throws {
        let result = try await CLI.run(["frobnicate"])
        #expect(result.status == 64 && result.stderr.hasPrefix("error: unknown command 'frobnicate'\n"), "\(result)")
    }

    // MARK: Completion (item 6)

    /// Runs `script` in bash with the completion script loaded; `complete NAME WORDS…` prints COMPREPLY.
    static func bash(_ script: String) async throws -> String {
        let exe = CLI.executable.path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [
            "-c",
            """
            source <('\(exe)' --generate-completion-script bash) || exit 3
            complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=(); _labelreplay; echo "${COMPREPLY[*]}"; }
            \(script)
            """
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "bash exited \(process.terminationStatus)")
        return String(decoding: data, as: UTF8.self)
    }

    @Test func bashLoadsTheCompletionAndCompletesCommandsOptionsValuesPathsAndIds() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeGridTileRing(at: log)
        let exe = CLI.executable.path
        #expect(try await Self.bash("complete -p labelreplay") == "complete -F _labelreplay labelreplay\n")
        let lines = try await Self.bash(
            """
            cd '\(scratch.url.path)'
            complete_words '\(exe)' lo
            complete_words '\(exe)' log l.labellog --la
            complete_words '\(exe)' log l.labellog --kind re
            complete_words '\(exe)' log l.labellog --color a
            complete_words '\(exe)' rename l.labellog 0
            complete_words '\(exe)' trace l.labellog --query x --label ''
            complete_words '\(exe)' show l.
            complete_words '\(exe)' help tr
            complete_words '\(exe)' --generate-completion-script f
            complete_words '\(exe)' rename l.labellog 00000000 ''
            complete_words '\(exe)' --generate-completion-script bash ''
            """
        ).components(separatedBy: "\n")
        #expect(lines.count >= 10, "\(lines)")
        #expect(lines[0] == "log")
        #expect(lines[1] == "--label --last")
        #expect(lines[2] == "renamed removed reordered rejected")
        #expect(lines[3] == "auto always")
        let full = (1...3).map { testID($0).description }.joined(separator: " ")
        #expect(lines[4] == full, "the three ids share their first 8 digits, so they are offered in full: \(lines[4])")
        #expect(lines[5] == full)
        #expect(lines[6] == "l.labellog")
        #expect(lines[7] == "trace")
        #expect(lines[8] == "fish")
        #expect(lines[9] == "", "a title is free text: nothing to offer")
        #expect(lines[10] == "", "nothing follows the shell")
    }

    @Test func theCompletionHelperListsIdsWithTitles() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try makeLog(at: log) { store in
            try store.add("Amber", id: LabelID("3f2a9c1e-0000-4000-8000-000000000001")!)
            try store.add("Cobalt", id: LabelID("3f2b0000-0000-4000-8000-000000000002")!)
            try store.remove(LabelID("3f2b0000-0000-4000-8000-000000000002")!)
        }
        let all = try await CLI.run(["__complete", "ids", log, "3f2"])
        #expect(all.stdout == "3f2a9c1e\tAmber\n3f2b0000\tCobalt\n", "removed labels too: \(all)")
        let one = try await CLI.run(["__complete", "ids", log, "3F2A"])
        #expect(one.stdout == "3f2a9c1e\tAmber\n")
        let missing = try await CLI.run(["__complete", "ids", scratch.path("nope"), ""])
        #expect(missing.status == 0 && missing.stdout.isEmpty && missing.stderr.isEmpty, "completion stays quiet")
        let help = try await CLI.run(["--help"])
        #expect(!help.stdout.contains("__complete"), "the helper is hidden")
    }

    @Test func zshAndFishScriptsAreGenerated() async throws {
        let zsh = try await CLI.run(["--generate-completion-script", "zsh"])
        #expect(zsh.status == 0 && zsh.stdout.hasPrefix("#compdef labelreplay\n"), "\(zsh)")
        #expect(zsh.stdout.contains("'*--label[") && zsh.stdout.contains("_labelreplay_ids") && zsh.stdout.contains("{-n,--last}"))
        let fish = try await CLI.run(["--generate-completion-script=fish"])
        #expect(
            fish.status == 0
                && fish.stdout.contains("complete -c labelreplay -n '__fish_seen_subcommand_from log' -l label -x -a '(__labelreplay_ids)'")
        )
        #expect(fish.stdout.contains("-l kind -x -a 'added renamed toggled removed moved reordered rejected'"))
        for shell in ["zsh", "fish"] where FileManager.default.isExecutableFile(atPath: "/usr/bin/\(shell)") {
            // Where the shell is installed, it parses the script.
            let script = FileManager.default.temporaryDirectory.appendingPathComponent("labelreplay-completion-\(UUID().uuidString)")
            try Data((shell == "zsh" ? zsh : fish).stdout.utf8).write(to: script)
            defer { try? FileManager.default.removeItem(at: script) }
            let process = try Process.run(URL(fileURLWithPath: "/usr/bin/\(shell)"), arguments: ["-n", script.path])
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(shell) -n")
        }
        let unknown = try await CLI.run(["--generate-completion-script", "tcsh"])
        #expect(unknown.status == 64 && unknown.stderr.contains("expects one of bash, zsh, fish, not 'tcsh'"), "\(unknown)")
    }

    // MARK: Errors (item 9)

    @Test func errorsPutThePathFirstAndSayWhatToDo() async throws {
        let scratch = try Scratch()
        let file = scratch.path("plain-file")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let log = scratch.path("l.labellog")
        try makeGridTileRing(at: log)
        try makeLog(at: log) { store in try store.remove(testID(2)) }

        // An OS error: the path given (never the temporary name), the reason in words, the errno name.
        let create = try await CLI.run(["add", file + "/x.labellog", "A"])
        #expect(create.status == 1, "\(create)")
        #expect(create.stderr.hasPrefix("error: \(file)/x.labellog: cannot open the file: not a directory (ENOTDIR)"), "\(create)")
        #expect(!create.stderr.contains(".creating-") && !create.stderr.contains("errno"), "\(create)")
        let verify = try await CLI.run(["verify", file + "/x"])
        #expect(verify.stderr.hasPrefix("error: \(file)/x: ") && verify.stderr.contains("(ENOTDIR)"), "\(verify)")
        // Store refusals name the log first, and ranges read as words.
        let range = try await CLI.run(["move", log, testID(1).description, "5"])
        #expect(range.stderr.hasPrefix("error: \(log): position 5 is out of range 0 to 1 for a list of 2 labels"), "\(range)")
        #expect(!range.stderr.contains("..<") && range.stderr.contains("'labelreplay show \(log)'"), "\(range)")
        let removed = try await CLI.run(["rename", log, testID(2).description, "X"])
        #expect(removed.stderr.hasPrefix("error: \(log): Edit skipped: label was removed. (removed at seq 4"), "\(removed)")
        #expect(removed.stderr.contains("'labelreplay log \(log) --label 00000000' shows its history"), "\(removed)")
        let stale = try await CLI.run(["toggle", log, testID(1).description, "--expect-version", "3"])
        #expect(stale.stderr.hasPrefix("error: \(log): Stale write") && stale.stderr.contains("retry with --expect-version 1"), "\(stale)")
        let unknown = try await CLI.run(["rename", log, "abcd", "X"])
        #expect(unknown.stderr.contains("no label id starts with 'abcd'; 'labelreplay show \(log)' lists the labels"), "\(unknown)")
        // The empty path, a directory for the demo, a file that exists.
        let empty = try await CLI.run(["show", ""])
        #expect(empty.status == 64 && empty.stderr.hasPrefix("error: the value '' is invalid for '<log>'"), "\(empty)")
        let directory = try await CLI.run(["demo", "--log", scratch.url.path])
        #expect(directory.status == 1 && directory.stderr.contains("is a directory; give the path of a new file"), "\(directory)")
        let exists = try await CLI.run(["demo", "--log", log])
        #expect(exists.stderr.contains("the file already exists; the demo never overwrites a file"), "\(exists)")
        let missing = try await CLI.run(["stats", scratch.path("nope.labellog")])
        #expect(missing.stderr.hasPrefix("error: \(scratch.path("nope.labellog")): no such file; check the path"), "\(missing)")
    }

    // MARK: Smaller things (item 11)

    @Test func editsGetADefaultActor() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        _ = try await CLI.run(["add", log, "A"], environment: ["LABELREPLAY_ACTOR": "alice"])
        _ = try await CLI.run(["add", log, "B"], environment: ["LOGNAME": "carol"], unsetting: ["LABELREPLAY_ACTOR"])
        _ = try await CLI.run(["add", log, "C", "--actor", "bob"], environment: ["LABELREPLAY_ACTOR": "alice"])
        _ = try await CLI.run(["add", log, "D", "--actor", ""], environment: ["LABELREPLAY_ACTOR": "alice"])
        let actors = try await CLI.run(["log", log, "--json"]).jsonLines().map { $0["actor"] as? String }
        #expect(actors == ["alice", "carol", "bob", nil])
    }

    @Test func demoSuggestsTheCommandAsTyped() async throws {
        let scratch = try Scratch()
        // Found through PATH: the program name as invoked.
        let bin = scratch.url.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: bin.appendingPathComponent("labelreplay").path, withDestinationPath: CLI.executable.path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["PATH=\(bin.path):/usr/bin:/bin", "labelreplay", "demo", "--log", "d.labellog"]
        process.currentDirectoryURL = scratch.url
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(output)")
        #expect(output.contains("\n  labelreplay log d.labellog\n"), "\(output)")
        // Started by its path under .build/<triple>/<configuration>/, as 'swift run' does it (from the
        // package directory, by a relative path): 'swift run', never the build path.
        let parts = CLI.executable.pathComponents
        let build = try #require(parts.lastIndex(of: ".build"))
        let package = NSString.path(withComponents: Array(parts[..<build]))
        let relative = parts[build...].joined(separator: "/")
        if parts.count - build == 4 {  // .build/<triple>/debug/labelreplay
            let run = Process()
            run.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            run.arguments = [relative, "demo", "--log", scratch.path("r.labellog")]
            run.currentDirectoryURL = URL(fileURLWithPath: package)
            let out = Pipe()
            run.standardOutput = out
            try run.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            run.waitUntilExit()
            #expect(text.contains("\n  swift run labelreplay log "), "\(text)")
            #expect(!text.contains(".build/"), "\(text)")
        }
        // The same from another directory: with --package-path.
        let built = try await CLI.run(["demo", "--log", "e.labellog"], in: scratch.url)
        if parts.count - build == 4 {
            #expect(built.stdout.contains("  swift run --package-path \(package) labelreplay log e.labellog"), "\(built)")
        }
        #expect(!built.stdout.contains("/.build/"), "\(built)")
    }

    @Test func statsSaysOneRecordAndAHumanDuration() async throws {
        let scratch = try Scratch()
        let one = scratch.path("one.labellog")
        try makeLog(at: one) { store in try store.add("A", options: stamped(0)) }
        let single = try await CLI.run(["stats", one])
        #expect(single.stdout.contains(", 1 record (") && single.stdout.contains("(0 ms)"), "\(single)")
        let long = scratch.path("long.labellog")
        try makeLog(at: long) { store in
            try store.add("A", options: stamped(0))
            try store.add("B", options: stamped(2_569_072))
        }
        let span = try await CLI.run(["stats", long])
        #expect(span.stdout.contains("2 records (") && span.stdout.contains("(29 days 17 h)"), "\(span)")
        let json = try await CLI.run(["stats", long, "--json"]).json()
        #expect(json["spanSeconds"] as? Double == 2_569_072, "JSON keeps seconds")
    }

    @Test func showAndTraceUseTheSameWords() async throws {
        let scratch = try Scratch()
        let log = scratch.path("l.labellog")
        try ReadCommandTests.history(at: log)
        let full = try await CLI.run(["show", log])
        #expect(full.lines[1].hasPrefix("  position  id"), "\(full)")
        let view = try await CLI.run(["show", log, "--query", "grid", "--at", "3"])
        #expect(view.lines[2].hasPrefix("  row  position  id"), "\(view)")
        #expect(view.lines[3].hasPrefix("    0         0  00000000  Grid"), "\(view)")
        let trace = try await CLI.run(["trace", log, "--query", "grid", "--to", "1"])
        #expect(trace.stdout.contains("row 0 inserted"), "the view's row, the same word: \(trace)")
        #expect(!full.stdout.contains("#  id"))
    }
}
