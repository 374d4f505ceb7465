import Foundation
import Testing

/// `demo`: the README's main command.
@Suite struct DemoTests {
    @Test func demoWritesBothScenariosIntoANewLogThatVerifies() async throws {
        let scratch = try Scratch()
        let demo = try await CLI.run(["demo"], in: scratch.url)
        #expect(demo.status == 0, "\(demo)")
        let logs = scratch.files.filter { $0.hasPrefix("labels-demo-") && $0.hasSuffix(".labellog") }
        try #require(logs.count == 1, "files: \(scratch.files)")
        let log = scratch.path(logs[0])
        #expect(demo.stdout.contains(logs[0]), "the output names the log")
        for step in ["A.1", "A.2", "A.3", "A.4", "A.5", "B.0", "B.1", "B.2", "B.3", "B.4", "B.5", "B.6", "B.7", "B.8"] {
            #expect(demo.stdout.contains("\n\(step)  "), "step \(step) is printed")
        }
        #expect(demo.stdout.contains("Nothing to act on: the list is empty."))
        #expect(demo.stdout.contains("rejected: Edit skipped: label was removed."))
        #expect(demo.stdout.contains("not to the list (no membership change)"))
        for hint in ["log \(logs[0])", "trace \(logs[0])", "show \(logs[0]) --at", "diff \(logs[0])", "timeline \(logs[0])"] {
            #expect(demo.stdout.contains(hint), "suggests \(hint)")
        }

        async let verify = CLI.run(["verify", log])
        async let show = CLI.run(["show", log, "--json"])
        async let rejected = CLI.run(["log", log, "--kind", "rejected", "--json"])
        async let everything = CLI.run(["log", log, "--json"])
        #expect(try await verify.status == 0)
        // Scenario B's final state: Ring Two (on), Grid Two (off).
        let final = try await show.json()
        #expect(rows(final) == ["Ring Two (on)", "Grid Two (off)"])
        let audit = try await rejected.jsonLines()
        try #require(audit.count == 1)
        #expect((audit[0]["reason"] as? String)?.hasPrefix("Edit skipped: label was removed.") == true)
        #expect(audit[0]["actor"] as? String == "filter-ui")
        let records = try await everything.jsonLines()
        #expect(records.count == 18)
        #expect(Set(records.compactMap { $0["actor"] as? String }) == ["setup", "row-ui", "filter-ui"])
        #expect(records.allSatisfy { $0["note"] is String })
        // The rejected edit names the removal that caused it.
        let removal = records.last { $0["kind"] as? String == "removed" && $0["title"] as? String == "Tile" }
        let removalSeq = try #require(removal?["seq"] as? Int)
        #expect((audit[0]["reason"] as? String)?.contains("removed at seq \(removalSeq)") == true)
    }

    @Test func demoNeverOverwrites() async throws {
        let scratch = try Scratch()
        let first = try await CLI.run(["demo"], in: scratch.url)
        let second = try await CLI.run(["demo"], in: scratch.url)
        #expect(first.status == 0 && second.status == 0)
        #expect(scratch.files.filter { $0.hasSuffix(".labellog") }.count == 2, "\(scratch.files)")

        let taken = scratch.path("taken.labellog")
        try write(Array("precious".utf8), to: taken)
        let refused = try await CLI.run(["demo", "--log", taken])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("already exists"))
        #expect(try bytes(taken) == Array("precious".utf8))
    }

    @Test func demoWritesWhereToldAndMatchesTheScenarioSeqs() async throws {
        let scratch = try Scratch()
        let log = scratch.path("demo.labellog")
        let demo = try await CLI.run(["demo", "--log", log])
        #expect(demo.status == 0, "\(demo)")
        // Scenario A ends empty at seq 9; scenario B starts from there.
        async let afterA = CLI.run(["show", log, "--at", "9", "--json"])
        async let afterB0 = CLI.run(["show", log, "--at", "12", "--json"])
        async let ringView = CLI.run(["show", log, "--at", "12", "--query", "ring", "--json"])
        async let reverse = CLI.run(["log", log, "--from", "14", "--to", "14"])
        #expect(rows(try await afterA.json()).isEmpty)
        #expect(rows(try await afterB0.json()) == ["Grid (on)", "Tile (off)", "Ring (on)"])
        let view = try await ringView.json()
        #expect(rows(view) == ["Ring (on)"])
        #expect((view["labels"] as? [[String: Any]])?.first?["position"] as? Int == 2)
        #expect(view["count"] as? Int == 3)
        // The log names labels as they were at each seq: Grid was renamed only at seq 15.
        #expect(try await reverse.stdout.contains(#"order: "Ring Two" · "Tile" · "Grid"  # B.3 reverse"#))
    }
}
