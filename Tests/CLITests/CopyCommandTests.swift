import EventLog
import Foundation
import Testing

/// `copy SRC DST` between log files, and `init` on a path (the server side is in PostgresTests).
@Suite struct CopyCommandTests {
    /// A log of `titles.count` additions at `path`, with an actor and a note on the first.
    private func makeLog(_ path: String, _ titles: [String]) async throws {
        for (index, title) in titles.enumerated() {
            let arguments = ["add", path, title, "--actor", "setup"] + (index == 0 ? ["--note", "first"] : [])
            let result = try await CLI.run(arguments)
            #expect(result.status == 0, "\(result)")
        }
    }

    @Test func copiesAWholeLogRecordForRecord() async throws {
        let scratch = try Scratch()
        let source = scratch.path("a.labellog")
        let destination = scratch.path("b.labellog")
        try await makeLog(source, ["Amber", "Tile", "Ring"])
        let copy = try await CLI.run(["copy", source, destination, "--json"])
        #expect(copy.status == 0, "\(copy)")
        let summary = try copy.json()
        #expect(summary["copied"] as? Int == 3 && summary["from"] as? Int == 1 && summary["to"] as? Int == 3)
        #expect(summary["created"] as? Bool == true && summary["skipped"] as? Int == 0 && summary["lastSeq"] as? Int == 3)
        let exported = try await CLI.run(["export", source])
        let copied = try await CLI.run(["export", destination])
        #expect(exported.stdout == copied.stdout && exported.stdout.contains("\"note\":\"first\""))

        let again = try await CLI.run(["copy", source, destination])
        #expect(again.status == 0 && again.stdout.hasPrefix("nothing to copy:"), "\(again)")
    }

    @Test func resumesAfterAPrefixTheDestinationAlreadyHolds() async throws {
        let scratch = try Scratch()
        let source = scratch.path("a.labellog")
        let destination = scratch.path("b.labellog")
        try await makeLog(source, ["Amber", "Tile"])
        #expect(try await CLI.run(["copy", source, destination]).status == 0)
        try await makeLog(source, ["Ring", "Grid"])
        let resumed = try await CLI.run(["copy", source, destination, "--json"])
        #expect(resumed.status == 0, "\(resumed)")
        let summary = try resumed.json()
        #expect(summary["skipped"] as? Int == 2 && summary["copied"] as? Int == 2 && summary["from"] as? Int == 3)
        #expect(summary["created"] as? Bool == false)
        let text = try await CLI.run(["copy", source, destination])
        #expect(text.stdout.contains("already holds every record"), "\(text)")
        #expect(try await CLI.run(["export", source]).stdout == (try await CLI.run(["export", destination]).stdout))
    }

    @Test func refusesADivergingDestinationNamingTheSeq() async throws {
        let scratch = try Scratch()
        let source = scratch.path("a.labellog")
        let destination = scratch.path("b.labellog")
        try await makeLog(source, ["Amber", "Tile", "Ring"])
        #expect(try await CLI.run(["copy", source, destination, "--json"]).status == 0)
        // Both grow apart after seq 3: the destination's seq 4 is another record.
        try await makeLog(source, ["Grid"])
        try await makeLog(destination, ["Other"])
        let before = try await CLI.run(["export", destination]).stdout
        let refused = try await CLI.run(["copy", source, destination])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.contains("seq 4 differs"), "\(refused)")
        #expect(try await CLI.run(["export", destination]).stdout == before)
    }

    @Test func refusesADestinationAheadOfTheSource() async throws {
        let scratch = try Scratch()
        let source = scratch.path("a.labellog")
        let destination = scratch.path("b.labellog")
        try await makeLog(source, ["Amber", "Tile"])
        #expect(try await CLI.run(["copy", source, destination]).status == 0)
        try await makeLog(destination, ["More"])
        let refused = try await CLI.run(["copy", source, destination])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.contains("ahead of the source") && refused.stderr.contains("ends at seq 2"), "\(refused)")
    }

    @Test func aMissingSourceIsAnErrorAndCreatesNothing() async throws {
        let scratch = try Scratch()
        let result = try await CLI.run(["copy", scratch.path("none.labellog"), scratch.path("b.labellog")])
        #expect(result.status == 1 && result.stderr.contains("no such file"), "\(result)")
        #expect(scratch.files.isEmpty)
    }

    /// A copy that fails after it created its destination file (here: the source's
    /// seq 2 is damaged) leaves the destination as it was: absent.
    @Test func aFailedCopyIntoANewFileLeavesNoFileBehind() async throws {
        let scratch = try Scratch()
        let source = scratch.path("a.labellog")
        try await makeLog(source, ["Amber", "Tile", "Ring"])
        let sound = try bytes(source)
        var damaged = sound
        damaged[sound.count - 20] ^= 0x5A
        try write(damaged + sound[64...], to: source)
        for arguments in [[], ["--json"], ["--follow"]] {
            let result = try await CLI.run(["copy", source, scratch.path("b.labellog")] + arguments)
            #expect(result.status == 1 && result.stderr.contains("seq"), "\(arguments): \(result)")
            #expect(scratch.files == ["a.labellog"], "\(arguments): \(scratch.files)")
        }
        // An existing destination keeps what it held.
        let existing = scratch.path("c.labellog")
        try await makeLog(existing, ["Amber"])
        let before = try bytes(existing)
        let failed = try await CLI.run(["copy", source, existing])
        #expect(failed.status == 1, "\(failed)")
        #expect(try bytes(existing) == before)
    }

    @Test func initCreatesAnEmptyLogFileOnce() async throws {
        let scratch = try Scratch()
        let log = scratch.path("new.labellog")
        let created = try await CLI.run(["init", log, "--json"])
        #expect(created.status == 0, "\(created)")
        let result = try created.json()
        #expect(result["created"] as? Bool == true && result["kind"] as? String == "file" && result["lastSeq"] as? Int == 0)
        #expect(try await CLI.run(["verify", log]).status == 0)
        try await makeLog(log, ["Amber"])
        let again = try await CLI.run(["init", log])
        #expect(again.status == 0 && again.stdout.contains("already a label log (ends at seq 1)"), "\(again)")
        try Data("not a log".utf8).write(to: URL(fileURLWithPath: scratch.path("text.txt")))
        let foreign = try await CLI.run(["init", scratch.path("text.txt")])
        #expect(foreign.status == 1, "\(foreign)")
    }

    @Test func fileOnlyCommandsRefuseAServerLocation() async throws {
        let url = "postgres://app:hunter2@db.example.com/labels?list=inbox"
        for arguments in [["repair", url], ["snapshot", url], ["index", url], ["demo", "--log", url]] {
            let result = try await CLI.run(arguments)
            #expect(result.status == 64, "\(result)")
            #expect(result.stderr.contains("is a server list") && !result.stderr.contains("hunter2"), "\(result)")
        }
    }

    #if !Postgres
    @Test func aServerLocationWithoutTheTraitSaysHowToBuildWithIt() async throws {
        let url = "postgres://nobody:hunter2@/postgres?host=/tmp/none&list=x"
        for arguments in [["show", url], ["log", url, "--json"], ["add", url, "Amber"], ["copy", url, "b.labellog"], ["init", url]] {
            let result = try await CLI.run(arguments)
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.contains("built without PostgreSQL support"), "\(result)")
            #expect(result.stderr.contains("swift build --traits Postgres"), "\(result)")
            #expect(!result.stderr.contains("no such file") && !result.stderr.contains("hunter2"), "\(result)")
            #expect(!result.stdout.contains("hunter2"))
        }
    }
    #endif
}
