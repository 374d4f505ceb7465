/// The workloads on a long history (issue 13's table): `state-at-*` in
/// process, `cli-*` through the release `labelreplay`, sharing one
/// ``HistoryFixture`` per size.
extension WorkloadCatalog {
    /// The `state-at-*` and `cli-*` workloads the settings select, in the order they run.
    static func historyWorkloads(for settings: BenchSettings) -> [any Workload] {
        let binary = LabelReplayBinary(path: settings.labelreplay)
        let cliRepetitions = settings.repetitionsOverride ?? (settings.quick ? nil : 3)
        var sizes = [settings.size(full: 1_000_000, quick: 200_000)]
        if settings.big { sizes.append(10_000_000) }
        return sizes.flatMap { size -> [any Workload] in
            let big = size >= 10_000_000
            let fixture = HistoryFixture(eventCount: size, seed: settings.seed, users: 0)
            var all: [any Workload] = StateAtSeqWorkload.Position.allCases.map {
                StateAtSeqWorkload(position: $0, fixture: fixture, repetitions: big ? settings.repetitionsOverride ?? 3 : nil)
            }
            all.append(IndexUpdateWorkload(fixture: fixture, repetitions: big ? settings.repetitionsOverride ?? 3 : nil))
            all.append(ArchiveWorkload(fixture: fixture, binary: binary, repetitions: big ? settings.repetitionsOverride ?? 3 : nil))
            all.append(OpenCutWorkload(fixture: fixture, repetitions: big ? settings.repetitionsOverride ?? 3 : nil))
            if !big {
                let run = CLIRun(binary: binary, fixture: fixture)
                all += CLIQueryWorkload.Command.allCases.map { CLIQueryWorkload(command: $0, run: run, repetitions: cliRepetitions) }
                all += CLIStreamWorkload.Command.allCases.map { CLIStreamWorkload(command: $0, run: run, repetitions: cliRepetitions) }
            }
            let selected = all.filter { settings.includes($0.id) }
            fixture.users = selected.count
            return selected
        }
    }
}
