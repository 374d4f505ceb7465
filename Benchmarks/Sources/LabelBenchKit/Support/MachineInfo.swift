import CSQLite
import Foundation

/// A description of the machine a run was measured on, for the header of
/// the table and for the README's results.
struct MachineInfo: Codable, Sendable {
    /// The CPU model (`model name` in `/proc/cpuinfo`), or "unknown".
    var cpu: String
    /// Logical cores available to the process.
    var cores: Int
    /// Physical memory in bytes.
    var memoryBytes: UInt64
    /// The OS name and kernel release.
    var os: String
    /// The first line of `swift --version`, or "unknown".
    var swift: String
    /// The SQLite library version linked in.
    var sqlite: String
    /// Where the benchmark's files are written.
    var scratchDirectory: String
    /// The file system type of that directory (from `/proc/mounts`), or "unknown".
    var fileSystem: String
    /// The median time of a 4 KiB append + `fdatasync` in the scratch directory, in milliseconds (see ``SyncProbe``).
    var syncMilliseconds: Double?
    /// The 1-minute load average when the run started (other work on the machine adds noise).
    var loadAverage: String
    /// Whether this binary was built with optimizations.
    var optimized: Bool
    /// The PostgreSQL server of the `pg-*` workloads (version, address, commit settings), when they run.
    var postgres: String?

    /// Collects the description; every probe is cheap and failure-tolerant.
    /// `probeDirectory` is where the sync probe writes (a directory of the scratch space).
    static func collect(scratchDirectory: String, probeDirectory: String) -> MachineInfo {
        let sync = SyncProbe.medianSyncLatency(in: probeDirectory).map { Statistics.seconds($0) * 1000 }
        return MachineInfo(
            cpu: cpuModel(), cores: ProcessInfo.processInfo.activeProcessorCount,
            memoryBytes: ProcessInfo.processInfo.physicalMemory, os: operatingSystem(),
            swift: swiftVersion(), sqlite: String(cString: sqlite3_libversion()),
            scratchDirectory: scratchDirectory, fileSystem: fileSystem(of: scratchDirectory),
            syncMilliseconds: sync, loadAverage: loadAverage(), optimized: isOptimized)
    }

    /// The header lines printed above the table.
    var lines: [String] {
        let gib = Double(memoryBytes) / Double(1 << 30)
        return [
            "machine: \(cpu), \(cores) cores, \(String(format: "%.1f", gib)) GiB RAM, load \(loadAverage)",
            "os: \(os); \(swift); SQLite \(sqlite)",
            "scratch: \(scratchDirectory) (\(fileSystem)); 4 KiB append + fdatasync: "
                + (syncMilliseconds.map { String(format: "%.2f ms", $0) } ?? "unknown") + " (median of 20)"
        ] + (postgres.map { [$0] } ?? [])
    }

    /// Whether the code was compiled with optimizations (`-c release`).
    static var isOptimized: Bool {
        #if DEBUG
        false
        #else
        true
        #endif
    }

    private static func read(_ path: String) -> String? {
        try? String(contentsOfFile: path, encoding: .utf8)
    }

    private static func cpuModel() -> String {
        guard let text = read("/proc/cpuinfo") else { return "unknown CPU" }
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return "unknown CPU"
    }

    private static func operatingSystem() -> String {
        var name = ProcessInfo.processInfo.operatingSystemVersionString
        if let release = read("/etc/os-release") {
            for line in release.split(separator: "\n") where line.hasPrefix("PRETTY_NAME=") {
                name = String(line.dropFirst("PRETTY_NAME=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        var info = utsname()
        if uname(&info) == 0 {
            let kernel = withUnsafeBytes(of: &info.release) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            name += ", kernel \(kernel)"
        }
        return name
    }

    private static func swiftVersion() -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "--version"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return "swift unknown"
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0,
            let line = text.split(separator: "\n").first(where: { $0.contains("Swift version") })
        else {
            return "swift unknown"
        }
        return String(line).trimmingCharacters(in: .whitespaces)
    }

    /// The type of the file system holding `path`: the longest mount point in `/proc/mounts` that contains it.
    private static func fileSystem(of path: String) -> String {
        guard let mounts = read("/proc/mounts") else { return "unknown" }
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        var best = (length: -1, type: "unknown", device: "")
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 3 else { continue }
            let mountPoint = fields[1].replacingOccurrences(of: "\\040", with: " ")
            let inside = mountPoint == "/" || resolved == mountPoint || resolved.hasPrefix(mountPoint + "/")
            if inside, mountPoint.count > best.length {
                best = (mountPoint.count, String(fields[2]), String(fields[0]))
            }
        }
        return best.length < 0 ? "unknown" : "\(best.type) on \(best.device)"
    }

    private static func loadAverage() -> String {
        guard let text = read("/proc/loadavg"), let first = text.split(separator: " ").first else { return "?" }
        return String(first)
    }
}
