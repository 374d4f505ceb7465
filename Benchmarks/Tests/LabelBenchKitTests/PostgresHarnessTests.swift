import Foundation
import Testing

@testable import LabelBenchKit

/// The PostgreSQL workloads' command line, gating and latency parsing: all
/// without a server (the workloads themselves need one).
@Suite struct PostgresHarnessTests {
    @Test func theServerComesFromTheOptionElseTheEnvironment() throws {
        let environment = [PostgresCatalog.environmentVariable: "host=/tmp/env"]
        guard case .run(let given) = try Arguments.parse(["--postgres", "host=/tmp/flag"], environment: environment, postgresBuilt: true),
            case .run(let inherited) = try Arguments.parse(["--quick"], environment: environment, postgresBuilt: true),
            case .run(let withoutTrait) = try Arguments.parse([], environment: environment, postgresBuilt: false),
            case .run(let none) = try Arguments.parse([], environment: [:], postgresBuilt: true)
        else {
            Issue.record("expected runs")
            return
        }
        #expect(given.postgres == "host=/tmp/flag")
        #expect(inherited.postgres == "host=/tmp/env")
        #expect(withoutTrait.postgres == nil)  // a build without the trait ignores the environment
        #expect(none.postgres == nil)
        #expect(throws: BenchError.self) { try Arguments.parse(["--postgres"], environment: [:]) }
        #expect(throws: BenchError.self) { try Arguments.parse(["--postgres", ""], environment: [:]) }
    }

    @Test func theConnectionStringNeverReachesTheJSONReport() throws {
        var settings = BenchSettings()
        settings.postgres = "host=db user=app password=hunter2"
        let json = String(decoding: try JSONEncoder().encode(settings), as: UTF8.self)
        #expect(!json.contains("hunter2") && json.contains("\"quick\""))
        let decoded = try JSONDecoder().decode(BenchSettings.self, from: Data(json.utf8))
        #expect(decoded.postgres == nil && decoded.seed == settings.seed)
    }

    @Test func pgWorkloadsAreSkippedOrRefusedWithAReason() {
        var settings = BenchSettings()
        // Without the trait: a plain run goes on; asking for them (or naming a server) is refused.
        guard case .skip(let notBuilt) = PostgresCatalog.decide(settings, built: false) else {
            Issue.record("expected a skip")
            return
        }
        #expect(notBuilt.contains("--traits Postgres"))
        settings.filters = ["pg"]
        guard case .refuse(let refused) = PostgresCatalog.decide(settings, built: false) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(refused.contains("--traits Postgres"))
        settings.filters = ["replay"]
        settings.postgres = "host=/tmp/x"
        if case .refuse = PostgresCatalog.decide(settings, built: false) {} else { Issue.record("--postgres without the trait") }

        // With the trait: no server skips them unless they are asked for; a server runs them.
        settings.postgres = nil
        settings.filters = []
        guard case .skip(let noServer) = PostgresCatalog.decide(settings, built: true) else {
            Issue.record("expected a skip")
            return
        }
        #expect(noServer.contains("--postgres") && noServer.contains(PostgresCatalog.environmentVariable))
        settings.filters = ["replay"]  // selects no pg workload: nothing to say
        if case .skip = PostgresCatalog.decide(settings, built: true) {} else { Issue.record("expected a skip") }
        settings.filters = ["pg-latency"]
        if case .refuse = PostgresCatalog.decide(settings, built: true) {} else { Issue.record("expected a refusal") }
        settings.filters = ["cli-show"]  // selects cli-show and pg-cli-show-1m: the first runs, the second is skipped
        if case .skip = PostgresCatalog.decide(settings, built: true) {} else { Issue.record("expected a skip for cli-show") }
        if case .skip = PostgresCatalog.decide(settings, built: false) {} else { Issue.record("expected a skip for cli-show") }
        settings.filters = ["pg-latency"]
        settings.postgres = "host=/tmp/x"
        #expect(PostgresCatalog.decide(settings, built: true) == .run)
    }

    @Test func theCatalogListsThemOnlyWithTheTraitAndAServer() {
        var settings = BenchSettings()
        settings.quick = true
        #expect(PostgresCatalog.ids(for: settings).contains("pg-catch-up-200k"))
        #expect(!WorkloadCatalog.workloads(for: settings).contains { $0.id.hasPrefix("pg-") })
        settings.postgres = "host=/tmp/nowhere"  // not connected until a workload prepares
        settings.filters = ["pg"]
        let ids = WorkloadCatalog.workloads(for: settings).map(\.id)
        #expect(ids == (PostgresCatalog.isBuilt ? PostgresCatalog.ids(for: settings) : []))
    }

    @Test func followerOutputIsCheckedAndTurnedIntoMilliseconds() throws {
        let good = "ready\n1 1500000\n2 250000\n3 20000000\ndone\n"
        #expect(try FollowerOutput.latencies(good, count: 3) == [1.5, 0.25, 20])
        #expect(throws: BenchError.self) { try FollowerOutput.latencies("ready\n1 5\n3 5\ndone\n", count: 3) }  // gap
        #expect(throws: BenchError.self) { try FollowerOutput.latencies("1 5\n1 5\n2 5\ndone\n", count: 3) }  // duplicate
        #expect(throws: BenchError.self) { try FollowerOutput.latencies("1 5\n2 5\n", count: 2) }  // no "done"
        #expect(throws: BenchError.self) { try FollowerOutput.latencies("1 5\ndone\n", count: 2) }  // short
        #expect(throws: BenchError.self) { try FollowerOutput.latencies("1 five\ndone\n", count: 1) }
    }

    @Test func latencyPercentiles() {
        let summary = LatencySummary(samples: (1...100).map(Double.init).reversed())
        #expect(summary.percentile(0.5) == 51 && summary.percentile(0.99) == 99 && summary.percentile(1) == 100)
        #expect(summary.text == "p50 51.00 ms, p90 90.00 ms, p99 99.00 ms, max 100.00 ms over 100 records")
        #expect(LatencySummary().percentile(0.99) == 0)
        let before = SharedClock.nanoseconds()
        #expect(SharedClock.nanoseconds() >= before)
    }
}
