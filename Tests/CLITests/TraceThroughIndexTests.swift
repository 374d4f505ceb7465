import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// `trace --label` through the history index when no record follows the
/// index: the records after it are not replayed (there are none), yet the
/// output, and the warning about a torn tail, are a full replay's.
struct TraceThroughIndexTests {
    @Test func aTraceWithNothingAfterTheIndexIsTheFullReplayTornTailWarningIncluded() async throws {
        let scratch = try Scratch()
        let path = scratch.path("h.labellog")
        let ids = try CheckpointCommandTests.makeHistory(at: path, seed: 31, writes: 300)
        // The last record torn: the index covers the one before it, and nothing complete follows.
        try write(Array(try bytes(path).dropLast(3)), to: path)
        let commands = ids.prefix(6).enumerated().map { k, id in
            ["trace", path, "--label", id.description, "--no-pager", "--color", "never"] + (k % 2 == 0 ? ["--json"] : [])
        }
        let scanned = try await CheckpointCommandTests.run(commands, hook: false)
        #expect(scanned.allSatisfy { $0.stderr.contains("torn tail") }, "\(scanned.map(\.stderr))")

        let built = try await CLI.run(["index", path], environment: CheckpointCommandTests.hook)
        #expect(built.status == 0, "\(built)")
        let checked = try await CheckpointCommandTests.expectSameAnswers(commands, scanned: scanned, "nothing after the index")
        #expect(checked.contains { $0.stderr.contains("(from the checkpoint at seq") }, "the index was not used")
    }

    @Test func aTraceByIdPrefixResolvesThroughTheIndexWithTheScansAnswers() async throws {
        let scratch = try Scratch()
        let path = scratch.path("h.labellog")
        let ids = try CheckpointCommandTests.makeHistory(at: path, seed: 37, writes: 300)
        let commands = ids.prefix(6).enumerated().map { k, id in
            ["trace", path, "--label", String(id.description.prefix(6 + k)), "--no-pager", "--color", "never"]
                + (k % 2 == 0 ? ["--json"] : [])
        }
        let scanned = try await CheckpointCommandTests.run(commands, hook: false)
        #expect(scanned.allSatisfy { $0.status == 0 }, "\(scanned)")
        let built = try await CLI.run(["index", path], environment: CheckpointCommandTests.hook)
        #expect(built.status == 0, "\(built)")
        let checked = try await CheckpointCommandTests.expectSameAnswers(commands, scanned: scanned, "prefixes through the index")
        #expect(checked.allSatisfy { $0.stderr.contains("(label ids from the history index)") }, "\(checked.map(\.stderr))")
    }
}
