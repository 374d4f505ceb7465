import Foundation

/// The peak resident memory of a command, measured from a small process.
///
/// On Linux, `posix_spawn` starts a child in the spawning process's memory
/// (`vfork`; `fork` copies it), and at `exec` the kernel folds that memory's
/// peak into the child's `ru_maxrss`: a child of labelbench (hundreds of MB after its
/// fixtures) would report at least labelbench's peak. So labelbench starts
/// itself in this mode (`labelbench --rusage-probe OUT ERR EXE ARGS…`), a fresh
/// process with little memory, which runs the command with ``ChildProcess``
/// and prints one line: `status signaled elapsed-ns max-rss-bytes floor-bytes`,
/// where the floor is the probe's own peak (`VmHWM`): the command's peak
/// cannot read lower than that.
enum RusageProbe {
    /// The hidden first argument that runs the probe instead of the benchmark.
    static let argument = "--rusage-probe"

    /// What the probe reports.
    struct Report: Equatable {
        /// How the command ended, its time and its peak resident set.
        var outcome: ChildProcess.Outcome
        /// The probe's own peak resident set in bytes (0 where unknown): the lowest peak the command can show.
        var floorBytes: Int
    }

    /// The probe process: runs the command and prints its report; returns the exit status.
    static func main(_ arguments: [String]) -> Int32 {
        guard arguments.count >= 3 else { return 2 }
        do {
            let outcome = try ChildProcess.run(
                arguments[2], Array(arguments.dropFirst(3)), outputPath: arguments[0], errorPath: arguments[1])
            print(line(Report(outcome: outcome, floorBytes: ownPeakBytes())))
            return 0
        } catch {
            FileHandle.standardError.write(Data("labelbench --rusage-probe: \(error)\n".utf8))
            return 1
        }
    }

    /// Runs `executable arguments` through a probe process (this executable in
    /// probe mode) and returns its report.
    static func run(_ executable: String, _ arguments: [String], outputPath: String, errorPath: String, reportPath: String) throws -> Report
    {
        let probe = try ChildProcess.currentExecutable()
        let outcome = try ChildProcess.run(
            probe, [argument, outputPath, errorPath, executable] + arguments, outputPath: reportPath, errorPath: reportPath + ".err")
        let text = (try? String(contentsOfFile: reportPath, encoding: .utf8)) ?? ""
        guard outcome.status == 0, let report = parse(text) else {
            let errors = (try? String(contentsOfFile: reportPath + ".err", encoding: .utf8)) ?? ""
            throw BenchError("the rusage probe failed (status \(outcome.status)): '\(text)' \(errors)")
        }
        return report
    }

    /// The probe's output line for `report`.
    static func line(_ report: Report) -> String {
        let o = report.outcome
        let nanoseconds = Int64(Statistics.seconds(o.elapsed) * 1e9)
        return "\(o.status) \(o.signaled ? 1 : 0) \(nanoseconds) \(o.maxResidentBytes) \(report.floorBytes)"
    }

    /// The report in the probe's output `text`, or `nil` if it is not one.
    static func parse(_ text: String) -> Report? {
        let fields = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard fields.count == 5, let status = Int32(fields[0]), let signaled = Int(fields[1]), signaled == 0 || signaled == 1,
            let nanoseconds = Int64(fields[2]), nanoseconds >= 0, let peak = Int(fields[3]), peak >= 0, let floor = Int(fields[4]),
            floor >= 0
        else { return nil }
        return Report(
            outcome: .init(status: status, signaled: signaled == 1, elapsed: .nanoseconds(nanoseconds), maxResidentBytes: peak),
            floorBytes: floor)
    }

    /// This process's own peak resident set (`VmHWM` of `/proc/self/status`), 0 where unknown.
    static func ownPeakBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kilobytes = line.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap { Int($0) } ?? 0
            return kilobytes * 1024
        }
        return 0
    }
}
