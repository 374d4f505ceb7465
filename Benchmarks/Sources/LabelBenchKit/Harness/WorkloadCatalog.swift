import EventLog

/// The list of workloads, in the order they run.
///
/// To add a workload, append it here (projection workloads go in
/// ``projectionWorkloads(for:)``, in `Workloads/ProjectionWorkloads.swift`;
/// PostgreSQL workloads in ``postgresWorkloads(for:)``, in `Postgres/PostgresCatalog.swift`).
enum WorkloadCatalog {
    /// Every workload the settings select (`--quick` sizes, `--big`, `--filter`).
    static func workloads(for settings: BenchSettings) -> [any Workload] {
        var all: [any Workload] = [
            SingleAppendWorkload(settings: settings),
            BatchAppendWorkload(settings: settings),
            DiskLimitWorkload(settings: settings),
            DiskLimitWorkload(settings: settings, pipelined: true),
            ConcurrentWritersWorkload(settings: settings),
            ReplayWorkload<DecodeOnlyConsumer>(eventCount: settings.size(full: 1_000_000, quick: 200_000), settings: settings)
        ]
        if settings.big {
            all.append(ReplayWorkload<DecodeOnlyConsumer>(eventCount: 10_000_000, settings: settings, repetitions: 3))
        }
        all.append(BytesOnDiskWorkload(settings: settings))
        all.append(BytesOnDiskWorkload(settings: settings, format: LogFormat.batchVersion))
        all.append(
            ReplayWorkload<DecodeOnlyConsumer>(
                eventCount: settings.size(full: 1_000_000, quick: 200_000), settings: settings, format: LogFormat.batchVersion))
        all.append(HistoryHeadWorkload(eventCount: settings.size(full: 1_000_000, quick: 200_000), settings: settings))
        if settings.big { all.append(HistoryHeadWorkload(eventCount: 10_000_000, settings: settings, repetitions: 3)) }
        let binary = LabelReplayBinary(path: settings.labelreplay)
        for quick in [false, true] {
            all.append(
                CLIVerifyHeadWorkload(
                    eventCount: settings.size(full: 1_000_000, quick: 200_000), binary: binary, settings: settings, quick: quick))
            if settings.big {
                all.append(CLIVerifyHeadWorkload(eventCount: 10_000_000, binary: binary, settings: settings, repetitions: 3, quick: quick))
            }
        }
        all += projectionWorkloads(for: settings)
        all += historyWorkloads(for: settings)
        all += postgresWorkloads(for: settings)
        return all.filter { settings.includes($0.id) }
    }
}
