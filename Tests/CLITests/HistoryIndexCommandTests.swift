import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// `labelreplay index` and `log` through the history index: with the index
/// current, stale (records appended after it) or damaged, `log` prints
/// exactly what it prints without one.
@Suite struct HistoryIndexCommandTests {
    /// A history of a few thousand records: 60 labels, three actors and none, renames, toggles, moves, removes.
    static func makeHistory(at path: String, seed: UInt64, writes: Int) throws -> [LabelID] {
        var rng = SeededGenerator(seed: seed)
        var ids: [LabelID] = []
        try makeLog(at: path) { store in
            let actors: [String?] = ["alice", "bob", "sync", nil]
            for i in 0..<writes {
                let options = stamped(Int64(i), actor: actors.randomElement(using: &rng)!)
                if ids.count < 60 && (ids.count < 5 || Int.random(in: 0..<5, using: &rng) == 0) {
                    ids.append(try store.add("label \(i)", options: options))
                    continue
                }
                let live = store.labels.map(\.id)
                guard let id = live.randomElement(using: &rng) else { continue }
                switch Int.random(in: 0..<11, using: &rng) {
                case 0..<4: try store.rename(id, to: "label \(i)", options: options)
                case 4..<7: try store.toggle(id, options: options)
                case 7..<9: try store.move(id, to: Int.random(in: 0..<live.count, using: &rng), options: options)
                case 9: try store.remove(id, options: options)
                default: try store.reverse(options: options)  // a reorder: every label's candidate
                }
            }
        }
        return ids
    }

    /// The `log` argument lists compared, for labels `ids`.
    static func queries(_ ids: [LabelID]) -> [[String]] {
        let one = ids[7].description
        let prefix = String(ids[3].description.prefix(8))
        return [
            ["--label", one], ["--label", prefix, "--json"], ["--label", one, "--label", ids[20].description, "-n", "3"],
            ["--actor", "alice"], ["--actor", "bob", "--no-actor", "--kind", "renamed"], ["--no-actor", "--from", "900", "--to", "1800"],
            ["--since", "2026-01-01T00:10:00Z", "--until", "2026-01-01T00:20:00Z"], ["--actor", "sync", "--since", "2026-01-01T00:30:00Z"],
            ["--label", one, "--actor", "nobody"], ["--actor", "bob", "-n", "5"]
        ]
    }

    /// Runs `log` for each query; `throughIndex` makes it read through the index even where a full read is cheaper.
    static func logOutputs(_ path: String, _ queries: [[String]], throughIndex: Bool = false) async throws -> [CLIResult] {
        var results: [CLIResult] = []
        let environment = throughIndex ? ["LABELREPLAY_TEST_INDEX": "always"] : [:]
        for query in queries { results.append(try await CLI.run(["log", path, "--no-pager"] + query, environment: environment)) }
        return results
    }

    /// `result`'s standard error without the line that says the index was read through.
    static func stderrWithoutIndexNote(_ result: CLIResult) -> String {
        result.stderr.replacingOccurrences(of: "(read through the history index)\n", with: "")
            .replacingOccurrences(of: "(label ids from the history index)\n", with: "")
    }

    @Test func logThroughACurrentOrStaleIndexPrintsWhatAFullReadPrints() async throws {
        let scratch = try Scratch()
        let path = scratch.path("h.labellog")
        let ids = try Self.makeHistory(at: path, seed: 3, writes: 2_600)
        let queries = Self.queries(ids)
        let plain = try await Self.logOutputs(path, queries)
        #expect(plain.contains { $0.lines.count > 5 }, "the queries select nothing: the test proves nothing")

        let built = try await CLI.run(["index", path])
        #expect(built.status == 0, "\(built)")
        #expect(built.stdout.contains("records 1 to "), "\(built)")
        let indexed = try await Self.logOutputs(path, queries, throughIndex: true)
        for (query, (a, b)) in zip(queries, zip(plain, indexed)) {
            #expect(b.stderr.contains("(read through the history index)"), "log \(query): the index was not read through")
            #expect(
                a.stdout == b.stdout && a.status == b.status && a.stderr == Self.stderrWithoutIndexNote(b), "log \(query): with the index")
        }
        // Without the test hook, the same output whichever way `log` chooses to read.
        #expect(try await Self.logOutputs(path, queries).map(\.stdout) == plain.map(\.stdout))

        // Appended after the index: the tail is read, the answer is the full read's.
        try makeLog(at: path) { store in
            for i in 0..<30 { try store.add("later \(i)", options: stamped(5_000 + Int64(i), actor: "alice")) }
        }
        let indexPath = HistoryIndexFile.path(for: path)
        try FileManager.default.removeItem(atPath: indexPath)
        let plainAfter = try await Self.logOutputs(path, queries)
        #expect(try await CLI.run(["index", path]).status == 0)
        try makeLog(at: path) { store in
            for (i, id) in store.labels.map(\.id).suffix(10).enumerated() {
                try store.toggle(id, options: stamped(6_000 + Int64(i), actor: "bob"))
            }
        }
        try FileManager.default.moveItem(atPath: indexPath, toPath: indexPath + ".kept")
        let plainStale = try await Self.logOutputs(path, queries)
        try FileManager.default.moveItem(atPath: indexPath + ".kept", toPath: indexPath)
        let stale = try await Self.logOutputs(path, queries, throughIndex: true)
        for (query, (a, b)) in zip(queries, zip(plainStale, stale)) {
            #expect(
                a.stdout == b.stdout && a.stderr == Self.stderrWithoutIndexNote(b), "log \(query): with an index missing the last records")
        }
        let changed = plainAfter.map(\.stdout) != plainStale.map(\.stdout)
        #expect(changed, "the appended records changed nothing: the stale case proves nothing")

        // The index is extended, not rebuilt.
        let extended = try await CLI.run(["index", path, "--json"]).json()
        #expect(extended["added"] as? Int == 10)
        #expect(extended["previous"] as? String == "usable")
        #expect(extended["rebuilt"] as? Bool == false)
        #expect(extended["change"] as? String == "appended-segment" && extended["segments"] as? Int == 1, "\(extended)")
    }

    @Test func aSegmentedIndexAnswersAsAFullReadAndADamagedSegmentIsReported() async throws {
        let scratch = try Scratch()
        let path = scratch.path("h.labellog")
        let ids = try Self.makeHistory(at: path, seed: 8, writes: 2_000)
        #expect(try await CLI.run(["index", path]).status == 0)
        var last = 2_000
        for round in 0..<3 {
            try makeLog(at: path) { store in
                for i in 0..<40 {
                    let id = try store.add("round \(round) \(i)", options: stamped(Int64(last + i), actor: "alice"))
                    if i % 3 == 0 { try store.rename(id, to: "renamed \(round) \(i)", options: stamped(Int64(last + i), actor: "bob")) }
                }
            }
            last += 40
            let text = try await CLI.run(["index", path])
            #expect(text.stdout.contains("a segment appended to \(HistoryIndexFile.deltaPath(for: path))"), "\(text)")
            #expect(text.stdout.contains("and \(round + 1) segment"), "\(text)")
        }
        let queries = Self.queries(ids)
        let segmented = try await Self.logOutputs(path, queries, throughIndex: true)
        let deltaPath = HistoryIndexFile.deltaPath(for: path)
        try FileManager.default.moveItem(atPath: deltaPath, toPath: deltaPath + ".kept")
        let plain = try await Self.logOutputs(path, queries)
        #expect(plain.contains { $0.lines.count > 5 }, "the queries select nothing: the test proves nothing")
        for (query, (a, b)) in zip(queries, zip(plain, segmented)) {
            #expect(a.stdout == b.stdout && a.stderr == Self.stderrWithoutIndexNote(b), "log \(query): through the segments")
        }

        // A damaged segment: reported, and the answer is still the full read's.
        var damaged = try bytes(deltaPath + ".kept")
        damaged[damaged.count - 30] ^= 0x10
        try write(damaged, to: deltaPath)
        let result = try await CLI.run(["log", path, "--no-pager"] + queries[0], environment: ["LABELREPLAY_TEST_INDEX": "always"])
        #expect(result.stdout == plain[0].stdout)
        #expect(result.stderr.contains("warning: \(deltaPath): the segment"), "\(result.stderr)")
        #expect(result.stderr.contains("are read from the log instead"), "\(result.stderr)")

        // index rewrites the delta file; --merge folds the segments into a new base.
        #expect(try await CLI.run(["index", path]).status == 0)
        let merged = try await CLI.run(["index", path, "--merge", "--json"]).json()
        #expect(merged["change"] as? String == "merged" && merged["segments"] as? Int == 0, "\(merged)")
        let after = try await Self.logOutputs(path, queries, throughIndex: true)
        #expect(after.map(\.stdout) == plain.map(\.stdout))
        #expect(after.allSatisfy { !$0.stderr.contains("warning") })
    }

    @Test func aDamagedOrForeignIndexIsReportedAndTheWholeLogRead() async throws {
        let scratch = try Scratch()
        let path = scratch.path("h.labellog")
        let ids = try Self.makeHistory(at: path, seed: 5, writes: 1_500)
        let query = ["--label", ids[2].description]
        let plain = try await CLI.run(["log", path, "--no-pager"] + query)
        #expect(try await CLI.run(["index", path]).status == 0)
        let indexPath = HistoryIndexFile.path(for: path)
        var damaged = try bytes(indexPath)
        damaged[damaged.count / 2] ^= 0x40
        try write(damaged, to: indexPath)
        let result = try await CLI.run(["log", path, "--no-pager"] + query)
        #expect(result.stdout == plain.stdout)
        #expect(result.stderr.contains("\(indexPath): the body's checksum does not match"), "\(result.stderr)")
        #expect(result.stderr.contains("reading the whole log instead"))

        let other = scratch.path("other.labellog")
        _ = try Self.makeHistory(at: other, seed: 6, writes: 50)
        #expect(try await CLI.run(["index", other]).status == 0)
        try FileManager.default.removeItem(atPath: indexPath)
        try FileManager.default.copyItem(atPath: HistoryIndexFile.path(for: other), toPath: indexPath)
        let foreign = try await CLI.run(["log", path, "--no-pager"] + query)
        #expect(foreign.stdout == plain.stdout)
        #expect(foreign.stderr.contains("it indexes another log"), "\(foreign.stderr)")

        let rebuilt = try await CLI.run(["index", path])
        #expect(rebuilt.stdout.contains("built from seq 1"), "\(rebuilt)")
        #expect(rebuilt.stdout.contains("the index there before was not used: it indexes another log"), "\(rebuilt)")
    }

    @Test func indexNamesAMissingLogAndTakesNoStrayArguments() async throws {
        let scratch = try Scratch()
        let missing = try await CLI.run(["index", scratch.path("nope.labellog")])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("nope.labellog: no such file"))
        #expect(!FileManager.default.fileExists(atPath: HistoryIndexFile.path(for: scratch.path("nope.labellog"))))
        let usage = try await CLI.run(["index"])
        #expect(usage.status == 64)
    }
}
