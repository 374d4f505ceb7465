/// Runs workloads: each side in alternation, several times, then the medians.
enum Runner {
    /// Runs `workload`: prepare, then for each repetition one measurement of
    /// each side (ours first on even repetitions, SQLite first on odd ones, so
    /// neither side always runs on a warmer or a more worn cache), then finish.
    static func run(_ workload: any Workload, context: BenchContext) throws -> WorkloadResult {
        context.progress("• \(workload.id): \(workload.title)")
        defer { workload.finish(context) }
        try workload.prepare(context)
        let repetitions = max(1, workload.repetitions ?? context.settings.repetitions)
        var samples: [Side: [Double]] = [.ours: [], .sqlite: []]
        for repetition in 0..<repetitions {
            let order: [Side] = workload.peer == nil ? [.ours] : repetition % 2 == 0 ? [.ours, .sqlite] : [.sqlite, .ours]
            var line: [String] = []
            for side in order {
                let value = try workload.measure(side, repetition: repetition, context: context)
                samples[side, default: []].append(value)
                line.append("\(side == .ours ? "ours" : workload.peer ?? "peer") \(workload.metric.format(value))")
            }
            context.progress("    repetition \(repetition + 1)/\(repetitions): " + line.joined(separator: ", "))
        }
        return result(workload, ours: samples[.ours] ?? [], sqlite: samples[.sqlite] ?? [])
    }

    /// The result of `workload` from its samples.
    static func result(_ workload: any Workload, ours: [Double], sqlite: [Double]) -> WorkloadResult {
        let oursMedian = Statistics.median(ours)
        let sqliteMedian = Statistics.median(sqlite)
        let ratio = workload.peer == nil ? .nan : sqliteMedian > 0 ? oursMedian / sqliteMedian : .infinity
        return WorkloadResult(
            id: workload.id, title: workload.title, events: workload.eventCount,
            metric: workload.metric, unit: workload.metric.unit, higherIsBetter: workload.metric.higherIsBetter,
            ours: .init(median: oursMedian, samples: ours), sqlite: .init(median: sqliteMedian, samples: sqlite),
            ratio: ratio, ratioText: workload.peer == nil ? "—" : workload.describe(ratio: ratio),
            target: workload.target, met: workload.target.isMet(ours: oursMedian, ratio: ratio),
            peer: workload.peer, notes: workload.notes)
    }
}
