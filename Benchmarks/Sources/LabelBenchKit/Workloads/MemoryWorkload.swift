#if os(Linux)
import EventLog
import Foundation
import LabelProjection

/// Workload `memory-1m` (Linux only): resident memory of a 1,000,000-label projection.
///
/// Each measurement runs in a fresh child process (`labelbench --memory-probe
/// SIDE COUNT SEED`), so that memory freed by earlier workloads and kept by
/// the allocator cannot hide the growth. The child reads its resident set
/// (`/proc/self/statm`), folds COUNT appending `added` records with
/// realistic titles (8–40 characters, some non-ASCII) into the structure, and
/// reads it again. Ours: a `LabelList` built by `apply`; the peer: a plain
/// `[Label]` built by `append`. Metric: resident bytes per label minus the
/// titles' UTF-8 bytes; target ≤ 120. The total per label is in the notes.
final class MemoryWorkload: Workload {
    let metric = Metric.bytesPerLabel
    let target = Target(maxOurs: 120, metric: .bytesPerLabel, text: "≤ 120 B/label + titles")
    let peer: String? = "[Label] array"
    let eventCount = 1_000_000
    let repetitions: Int?
    private let seed: UInt64
    private var totals: [Side: [Double]] = [:]
    private var titleBytesPerLabel = 0.0

    init(settings: BenchSettings) {
        seed = settings.seed
        repetitions = settings.repetitionsOverride ?? 3
    }

    var id: String { "memory-1m" }
    var title: String { "resident memory, \(eventCount.grouped) labels (excl. titles)" }

    var notes: [String] {
        let ours = Statistics.median(totals[.ours] ?? []), peer = Statistics.median(totals[.sqlite] ?? [])
        return [
            String(
                format: "total incl. titles: ours %.1f B/label, [Label] array %.1f B/label; titles average %.1f UTF-8 bytes",
                ours, peer, titleBytesPerLabel)
        ]
    }

    func prepare(_ context: BenchContext) throws {}

    func measure(_ side: Side, repetition: Int, context: BenchContext) throws -> Double {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [MemoryProbe.argument, side == .ours ? "list" : "array", String(eventCount), String(seed)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let fields = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        guard process.terminationStatus == 0, fields.count == 2 else {
            throw BenchError(
                "\(id): the memory probe failed (status \(process.terminationStatus), output '\(String(decoding: data, as: UTF8.self))')")
        }
        let (residentBytes, titleBytes) = (fields[0], fields[1])
        let perLabel = residentBytes / Double(eventCount)
        titleBytesPerLabel = titleBytes / Double(eventCount)
        totals[side, default: []].append(perLabel)
        return perLabel - titleBytesPerLabel
    }
}

/// The child process of ``MemoryWorkload``.
enum MemoryProbe {
    /// The hidden first argument that runs the probe instead of the benchmark.
    static let argument = "--memory-probe"

    /// Builds the structure and prints "<resident bytes added> <title UTF-8 bytes>"; returns the exit status.
    static func main(_ arguments: [String]) -> Int32 {
        guard arguments.count == 3, let count = Int(arguments[1]), let seed = UInt64(arguments[2]) else { return 2 }
        var rng = SeededGenerator(seed: seed)
        var titleBytes = 0
        let before = residentBytes()
        let after: Int
        switch arguments[0] {
        case "list":
            var list = LabelList()
            for i in 0..<count {
                let record = ProjectionFixtures.addedRecord(seq: UInt64(i + 1), index: i, rng: &rng)
                if case .added(_, let title, _, _) = record.event { titleBytes += title.utf8.count }
                do { try list.apply(record) } catch { return 1 }
            }
            after = residentBytes()
            withExtendedLifetime(list) {}
        case "array":
            var labels: [Label] = []
            for i in 0..<count {
                let record = ProjectionFixtures.addedRecord(seq: UInt64(i + 1), index: i, rng: &rng)
                guard case .added(let id, let title, let isEnabled, _) = record.event else { return 1 }
                titleBytes += title.utf8.count
                labels.append(Label(id: id, title: title, isEnabled: isEnabled, version: record.seq))
            }
            after = residentBytes()
            withExtendedLifetime(labels) {}
        default:
            return 2
        }
        print("\(after - before) \(titleBytes)")
        return 0
    }

    /// The resident set size from `/proc/self/statm` (second field, in pages).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
#endif
