#if Postgres
import EventLog
import Foundation
import LabelStorePostgres
import Synchronization

/// `pg-failover`: how long a writer is without a primary when the primary
/// dies and its synchronous standby is promoted.
///
/// Each repetition starts a pair of its own (`scripts/pg-test-server start
/// --standby`: a primary and a synchronous hot standby on Unix sockets of
/// this machine; it does not use the `--postgres` server). A writer appends
/// one record at a time through the multi-host location (`host=a,b`,
/// `target_session_attrs=read-write`). Once 100 are acknowledged the
/// primary is killed (`pg_ctl stop -m immediate`) and, as soon as that
/// returned, the standby promoted (`pg_ctl promote -w`, then its
/// `synchronous_standby_names` cleared), as a failover tool that has decided
/// would. Timed: from the moment the kill returned (the primary is gone) to
/// the writer's first acknowledged append after it. That is the promotion
/// plus the writer finding the new primary (its reconnect backoff, 20 ms
/// doubling to 1 s, jittered); a team's own detection delay comes on top.
/// Checked after: every acknowledged record on the new primary, none twice.
/// No peer. Metric: milliseconds (lower is better).
final class PostgresFailoverWorkload: Workload {
    let id = "pg-failover"
    let metric = Metric.milliseconds
    let target = Target(metric: .milliseconds, text: "measured")
    let peer: String? = nil
    let eventCount = 1
    let repetitions: Int? = 3
    /// For each repetition: how long the promotion script took (`pg_ctl promote -w`, then
    /// `synchronous_standby_names` cleared; the server accepts writes before its end).
    private var promotions: [Double] = []

    var title: String { "pg: failover, primary killed → first append on the promoted standby" }

    var notes: [String] {
        guard !promotions.isEmpty else { return [] }
        func list(_ values: [Double]) -> String { values.map { String(format: "%.0f", $0) }.joined(separator: ", ") }
        return ["the promotion (pg_ctl promote -w, then synchronous_standby_names cleared) took \(list(promotions)) ms of it"]
    }

    func prepare(_ context: BenchContext) throws {}

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        let pair = try BenchReplicaPair.start()
        defer { pair.stop() }
        let location = try PostgresLocation(connection: pair.failover, list: "failover")
        let log = try PostgresEventLog(location: location, options: .init(createIfMissing: true, reconnectTimeout: .seconds(60)))
        defer { log.close() }
        let acknowledged = Mutex<[(record: EventRecord, at: ContinuousClock.Instant)]>([])
        let failures = Mutex<[String]>([])
        let stop = Atomic<Bool>(false)
        let done = DispatchGroup()
        done.enter()
        Thread {
            defer { done.leave() }
            var stream = EventStream(seed: UInt64(repetition))
            var entry = stream.next(1)
            while !stop.load(ordering: .relaxed) {
                do throws(EventLogError) {
                    let records = try log.append(entry)
                    let now = ContinuousClock.now
                    acknowledged.withLock { $0 += records.map { ($0, now) } }
                    entry = stream.next(1)
                } catch {
                    failures.withLock { $0.append(error.message) }  // not acknowledged: sent again
                }
            }
        }.start()
        defer {
            stop.store(true, ordering: .relaxed)
            done.wait()
        }
        while acknowledged.withLock({ $0.count }) < 100 { Thread.sleep(forTimeInterval: 0.001) }
        try pair.killPrimary()
        let killed = ContinuousClock.now
        try pair.promote()
        let promoted = ContinuousClock.now
        var first: ContinuousClock.Instant?
        let deadline = killed.advanced(by: .seconds(60))
        while first == nil, ContinuousClock.now < deadline {
            first = acknowledged.withLock { $0.first { $0.at > killed }?.at }
            if first == nil { Thread.sleep(forTimeInterval: 0.001) }
        }
        stop.store(true, ordering: .relaxed)
        done.wait()
        guard let first else { throw BenchError("\(id): no append was acknowledged within 60 s of the kill") }
        let reader = try PostgresEventLog(location: location)
        defer { reader.close() }
        let stored = try reader.read(from: 1, maxCount: 1_000_000)
        let mine = acknowledged.withLock { $0.map(\.record) }
        let bySeq = Dictionary(uniqueKeysWithValues: stored.map { ($0.seq, $0) })
        guard mine.allSatisfy({ bySeq[$0.seq] == $0 }), stored.count == mine.count else {
            throw BenchError(
                "\(id): \(mine.count) acknowledged, \(stored.count) stored, or one changed (\(failures.withLock { $0.count }) failures)")
        }
        promotions.append((promoted - killed).milliseconds)
        return (first - killed).milliseconds
    }
}

/// A primary and a synchronous hot standby of `scripts/pg-test-server start --standby`.
struct BenchReplicaPair {
    let directory: String
    let failover: String

    /// The repository's `scripts/pg-test-server`.
    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/pg-test-server").path
    }

    static func start() throws -> BenchReplicaPair {
        let output = try run(["start", "--standby"])
        var values: [String: String] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix("export ") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line.dropFirst(7).prefix { $0 != "=" })] = String(line[line.index(after: equals)...].dropFirst().dropLast())
        }
        guard let directory = values["LABELSTORE_PG_DIR"], let failover = values["LABELSTORE_TEST_POSTGRES_FAILOVER"] else {
            throw BenchError("pg-test-server start --standby printed no connection strings: \(output)")
        }
        return BenchReplicaPair(directory: directory, failover: failover)
    }

    func killPrimary() throws { _ = try Self.run(["crash", directory]) }
    func promote() throws { _ = try Self.run(["promote", directory]) }
    func stop() { _ = try? Self.run(["stop", directory]) }

    /// Runs the script with `arguments`; its standard output.
    private static func run(_ arguments: [String]) throws -> String {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("labelbench-pg-\(UUID().uuidString.prefix(8))").path
        defer {
            try? FileManager.default.removeItem(atPath: base + ".out")
            try? FileManager.default.removeItem(atPath: base + ".err")
        }
        let outcome = try ChildProcess.run(script, arguments, outputPath: base + ".out", errorPath: base + ".err")
        let output = (try? String(contentsOfFile: base + ".out", encoding: .utf8)) ?? ""
        guard outcome.status == 0 else {
            let errors = (try? String(contentsOfFile: base + ".err", encoding: .utf8)) ?? ""
            throw BenchError("pg-test-server \(arguments.joined(separator: " ")) failed (\(outcome.status)): \(errors)")
        }
        return output
    }
}

extension Duration {
    /// The duration in milliseconds.
    fileprivate var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1_000 + Double(attoseconds) / 1e15
    }
}
#endif
