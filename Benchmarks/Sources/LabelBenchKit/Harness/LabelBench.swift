import Foundation

/// The `labelbench` program: parses the command line, runs the selected
/// workloads and prints the table (or JSON).
public enum LabelBench {
    /// Runs `labelbench` with `arguments` (without the program name) and
    /// returns the exit status: 0 on success (whether or not targets are
    /// met), 1 when a workload fails, 2 for a bad command line.
    public static func main(arguments: [String]) -> Int32 {
        #if os(Linux)
        if arguments.first == MemoryProbe.argument { return MemoryProbe.main(Array(arguments.dropFirst())) }
        #endif
        if arguments.first == RusageProbe.argument { return RusageProbe.main(Array(arguments.dropFirst())) }
        #if Postgres
        if arguments.first == PostgresFollower.argument { return PostgresFollower.main(Array(arguments.dropFirst())) }
        #endif
        let command: Arguments.Command
        do {
            command = try Arguments.parse(arguments)
        } catch {
            printError("labelbench: \(error)")
            return 2
        }
        switch command {
        case .help:
            print(Arguments.usage)
            return 0
        case .list(let settings):
            for workload in WorkloadCatalog.workloads(for: settings) {
                print("\(workload.id)\t\(workload.title)")
            }
            return 0
        case .run(let settings):
            return run(settings)
        }
    }

    private static func run(_ settings: BenchSettings) -> Int32 {
        guard MachineInfo.isOptimized || settings.allowDebug else {
            printError("labelbench: this is a debug build; run it with `swift run -c release labelbench` (or pass --allow-debug)")
            return 2
        }
        var postgresNote: String?
        switch PostgresCatalog.decide(settings) {
        case .run: break
        case .refuse(let message):
            printError("labelbench: \(message)")
            return 2
        case .skip(let note):
            printError("labelbench: \(note)")
            if PostgresCatalog.isBuilt { postgresNote = note }
        }
        let workloads = WorkloadCatalog.workloads(for: settings)
        guard !workloads.isEmpty else {
            printError("labelbench: no workload matches \(settings.filters) (see --list)")
            return 2
        }
        let scratch: ScratchSpace
        do {
            scratch = try ScratchSpace(base: settings.scratchBase)
        } catch {
            printError("labelbench: \(error)")
            return 1
        }
        defer { scratch.removeAll() }
        InterruptCleanup.install(removing: scratch.root)
        let context = BenchContext(settings: settings, scratch: scratch)
        context.progress("labelbench: \(settings.modeName) run, \(workloads.count) workloads, scratch in \(scratch.root)")
        let probeDirectory = try? scratch.freshDirectory("probe")
        var machine = MachineInfo.collect(scratchDirectory: settings.scratchBase, probeDirectory: probeDirectory ?? scratch.root)
        #if Postgres
        if let conninfo = settings.postgres, workloads.contains(where: { $0.id.hasPrefix("pg-") }) {
            machine.postgres = PostgresBenchServer.describe(conninfo: conninfo)
        }
        #endif
        if let probeDirectory { scratch.remove(probeDirectory) }
        if settings.json { machine.lines.forEach { context.progress($0) } }
        if machine.fileSystem.hasPrefix("tmpfs") {
            context.progress("WARNING: the scratch directory is on tmpfs, where fdatasync does nothing; use --dir on a real disk")
        }
        var results: [WorkloadResult] = []
        for workload in workloads {
            do {
                results.append(try Runner.run(workload, context: context))
            } catch {
                printError("labelbench: \(workload.id) failed: \(error)")
                return 1
            }
        }
        if settings.json {
            do {
                print(try JSONReport(machine: machine, settings: settings, repetitions: settings.repetitions, results: results).encoded())
            } catch {
                printError("labelbench: cannot encode the JSON report: \(error)")
                return 1
            }
        } else {
            print(TableReport.render(machine: machine, settings: settings, results: results))
            if let postgresNote { print("\n- \(postgresNote)") }
        }
        return 0
    }

    private static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
