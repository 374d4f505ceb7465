#if Postgres
import EventLog
import Foundation
import LabelStorePostgres

/// `pg-latency-notify` and `pg-latency-poll`: how long a record takes from the
/// `append` call in one process to a follower in another process having read it.
///
/// Each measurement starts a follower process (`labelbench --pg-follower …`,
/// an internal mode) on a fresh list: it opens the list with its own
/// `PostgresEventLog`, starts listening, says `ready`, then loops on
/// `waitForAppends(after:timeout:)` + `read(from:maxCount:)`. This process
/// then appends single records at a fixed pace (200 per second, each
/// acknowledged after `COMMIT`), each carrying in its note the time of its
/// `append` call on `CLOCK_MONOTONIC` (shared by every process of the
/// machine); the follower subtracts it from the time it read the record. The
/// latency so includes the append's own commit. Every seq must reach the
/// follower once, in order.
///
/// `-notify`: both logs with `Options.notify = true` (the default; the
/// follower also polls every 500 ms); target p99 ≤ 20 ms. `-poll`:
/// `notify = false`, the follower polls the head row every 100 ms; target
/// p99 ≤ poll interval + 20 ms. The value of a measurement is its p99; the
/// note gives the percentiles over every record of every repetition.
final class PostgresLatencyWorkload: Workload {
    /// Appends per second.
    static let rate = 200
    /// The follower's poll interval without NOTIFY.
    static let pollInterval = Duration.milliseconds(100)

    let id: String
    let metric = Metric.milliseconds
    let target: Target
    let peer: String? = nil
    let eventCount: Int
    private let notify: Bool
    private let server: PostgresBenchServer
    private let seed: UInt64
    private var entries: [LogEntry] = []
    private var latencies = LatencySummary()
    private var appendTimes = LatencySummary()

    /// 600 records (3 s) per measurement (quick: 200, 1 s).
    init(server: PostgresBenchServer, settings: BenchSettings, notify: Bool) {
        self.server = server
        self.notify = notify
        eventCount = settings.size(full: 600, quick: 200)
        seed = settings.seed
        id = notify ? "pg-latency-notify" : "pg-latency-poll"
        let allowance = notify ? 20.0 : Statistics.seconds(Self.pollInterval) * 1000 + 20
        target = Target(
            maxOurs: allowance, metric: .milliseconds,
            text: notify ? "p99 ≤ 20 ms" : "p99 ≤ \(Self.milliseconds(Self.pollInterval)) + 20 ms")
    }

    var title: String {
        "pg: append → follower process, p99, " + (notify ? "NOTIFY" : "poll \(Self.milliseconds(Self.pollInterval)) ms")
    }

    var notes: [String] {
        guard !latencies.samples.isEmpty else { return [] }
        return [
            "latency \(latencies.text) (\(Self.rate)/s); the appends themselves (commit acknowledged): "
                + String(
                    format: "p50 %.2f ms, p99 %.2f ms, max %.2f ms", appendTimes.percentile(0.5), appendTimes.percentile(0.99),
                    appendTimes.percentile(1))
        ]
    }

    func prepare(_ context: BenchContext) throws {
        entries = EventStream.entries(count: eventCount, seed: seed)
    }

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        let schema = server.freshSchema("ours")
        defer { server.dropSchema(schema) }
        let list = "latency"
        let log = try server.openLog(schema: schema, list: list, notify: notify)
        defer { log.close() }

        let follower = Process()
        follower.executableURL = URL(fileURLWithPath: try Self.executablePath())
        follower.arguments = [
            PostgresFollower.argument, schema, list, notify ? "notify" : "poll",
            String(Self.milliseconds(notify ? PostgresEventLog.Options().pollInterval : Self.pollInterval)), String(eventCount)
        ]
        var environment = ProcessInfo.processInfo.environment
        environment[PostgresFollower.environmentVariable] = server.conninfo
        follower.environment = environment
        let output = Pipe()
        follower.standardOutput = output
        try follower.run()
        var finished = false
        defer { if !finished { follower.terminate() } }
        // Wait until it listens.
        var early = Data()
        while !String(decoding: early, as: UTF8.self).contains(FollowerOutput.ready + "\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw BenchError("\(id): the follower process ended before it was ready") }
            early += chunk
        }

        let clock = ContinuousClock()
        let interval = Duration.seconds(1) / Self.rate
        let start = clock.now
        var appendDurations: [Double] = []
        appendDurations.reserveCapacity(entries.count)
        for (i, entry) in entries.enumerated() {
            let due = start + interval * i
            if clock.now < due { Thread.sleep(forTimeInterval: Statistics.seconds(clock.now.duration(to: due))) }
            var stamped = entry
            stamped.note = String(SharedClock.nanoseconds())
            let began = clock.now
            try log.append([stamped], expectedLastSeq: UInt64(i))
            appendDurations.append(Statistics.seconds(clock.now - began) * 1000)
        }
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        follower.waitUntilExit()
        finished = true
        guard follower.terminationStatus == 0 else { throw BenchError("\(id): the follower failed (status \(follower.terminationStatus))") }
        let measured = try FollowerOutput.latencies(String(decoding: early + rest, as: UTF8.self), count: eventCount)
        latencies.samples += measured
        appendTimes.samples += appendDurations
        return LatencySummary(samples: measured).percentile(0.99)
    }

    func finish(_ context: BenchContext) { entries = [] }

    static func milliseconds(_ duration: Duration) -> Int { Int((Statistics.seconds(duration) * 1000).rounded()) }

    /// This program's executable, to start the follower.
    private static func executablePath() throws -> String {
        #if os(Linux)
        return try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        #else
        guard let path = Bundle.main.executablePath else { throw BenchError("cannot find this program's executable") }
        return path
        #endif
    }
}

/// The follower process of ``PostgresLatencyWorkload``:
/// `labelbench --pg-follower SCHEMA LIST notify|poll POLL_MS COUNT`, the
/// server's connection string in `LABELBENCH_FOLLOWER_POSTGRES` (not on the
/// command line, where `ps` would show a password).
enum PostgresFollower {
    /// The hidden first argument that runs the follower instead of the benchmark.
    static let argument = "--pg-follower"
    /// Where the parent puts the connection string.
    static let environmentVariable = "LABELBENCH_FOLLOWER_POSTGRES"
    /// How long the follower waits for all its records before it gives up.
    static let patience = Duration.seconds(120)

    /// Follows the list until it has read COUNT records; prints `ready` once it
    /// listens, then (at the end, so printing never delays a read) one line
    /// `SEQ LATENCY_NS` per record and `done`. Returns the exit status.
    static func main(_ arguments: [String]) -> Int32 {
        guard arguments.count == 5, let pollMilliseconds = Int(arguments[3]), let count = UInt64(arguments[4]),
            ["notify", "poll"].contains(arguments[2]),
            let conninfo = ProcessInfo.processInfo.environment[environmentVariable]
        else {
            fail("usage: labelbench \(argument) SCHEMA LIST notify|poll POLL_MS COUNT (server in $\(environmentVariable))")
            return 2
        }
        do {
            let options = PostgresEventLog.Options(notify: arguments[2] == "notify", pollInterval: .milliseconds(pollMilliseconds))
            let log = try PostgresEventLog(
                location: PostgresLocation(connection: conninfo, list: arguments[1], schema: arguments[0]), options: options)
            defer { log.close() }
            _ = try log.waitForAppends(after: log.lastSeq, timeout: .zero)  // connects and listens
            FileHandle.standardOutput.write(Data((FollowerOutput.ready + "\n").utf8))
            var lines: [String] = []
            lines.reserveCapacity(Int(count))
            var next: UInt64 = 1
            let deadline = ContinuousClock.now + patience
            while next <= count {
                guard ContinuousClock.now < deadline else {
                    fail("follower: got \(next - 1) of \(count) records in \(patience)")
                    return 1
                }
                guard try log.waitForAppends(after: next - 1, timeout: .seconds(1)) else { continue }
                let records = try log.read(from: next, maxCount: 1000)
                let now = SharedClock.nanoseconds()
                for record in records {
                    guard let note = record.note, let sent = Int64(note) else {
                        fail("follower: seq \(record.seq) carries no send time")
                        return 1
                    }
                    lines.append("\(record.seq) \(now - sent)")
                }
                next += UInt64(records.count)
            }
            lines.append(FollowerOutput.done)
            FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
            return 0
        } catch {
            fail("follower: \(error)")
            return 1
        }
    }

    private static func fail(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
#endif
