import Foundation

/// Where the release `labelreplay` binary of the CLI workloads is: the path
/// given with `--labelreplay PATH`, else built once per run with
/// `swift build -c release --package-path ROOT --product labelreplay` (ROOT
/// is the package this Benchmarks package sits in, found from this file's
/// path; on Linux with `--static-swift-stdlib`, in a scratch directory of
/// its own: ``buildArguments(root:showBinPath:postgres:)``) and found with `--show-bin-path`. If the build fails, the CLI
/// workloads fail with the build's output and a hint to pass `--labelreplay`.
final class LabelReplayBinary {
    private let given: String?
    private let postgres: Bool
    private var resolved: String?

    /// The binary at `path` when given (`--labelreplay`), else one built on
    /// first use; with `postgres`, built with the `Postgres` trait (in
    /// `.build/postgres-release`, beside the plain build).
    init(path: String?, postgres: Bool = false) {
        given = path
        self.postgres = postgres
    }

    /// The root package's directory: `<root>/Benchmarks/Sources/LabelBenchKit/CLI/` holds this file.
    static let rootPackage: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<5 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The binary's path, building it the first time unless one was given.
    func path(_ context: BenchContext) throws -> String {
        if let resolved { return resolved }
        let path: String
        if let given {
            guard FileManager.default.isExecutableFile(atPath: given) else {
                throw BenchError("--labelreplay \(given): not an executable file")
            }
            path = given
        } else {
            path = try build(context)
        }
        resolved = path
        return path
    }

    /// The `swift build` arguments that build (or, with `showBinPath`, locate)
    /// the release binary: on Linux with the Swift runtime linked in
    /// (`--static-swift-stdlib`, as a binary is deployed; docs/CLI.md), in a
    /// scratch directory of its own so it never replaces the plain build's.
    static func buildArguments(root: String, showBinPath: Bool, postgres: Bool = false) -> [String] {
        #if os(Linux)
        let linking = ["--static-swift-stdlib"]
        let scratch = postgres ? "/.build/postgres-static-release" : "/.build/static-release"
        #else
        let linking: [String] = []
        let scratch = postgres ? "/.build/postgres-release" : "/.build"
        #endif
        return ["build", "-c", "release", "--package-path", root, "--product", "labelreplay"] + linking
            + (postgres ? ["--traits", "Postgres"] : []) + ["--scratch-path", root + scratch]
            + (showBinPath ? ["--show-bin-path"] : [])
    }

    private func build(_ context: BenchContext) throws -> String {
        let root = Self.rootPackage
        let log = try context.scratch.freshDirectory("labelreplay-build") + "/build.log"
        context.progress(
            "    building labelreplay: swift \(Self.buildArguments(root: root, showBinPath: false, postgres: postgres).joined(separator: " ")) (untimed)…"
        )
        func swift(_ showBinPath: Bool) throws -> String {
            let outcome = try ChildProcess.run(
                "swift", Self.buildArguments(root: root, showBinPath: showBinPath, postgres: postgres), outputPath: log,
                errorPath: log + ".err",
                searchPath: true)
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            guard outcome.status == 0 else {
                let errors = (try? String(contentsOfFile: log + ".err", encoding: .utf8)) ?? ""
                throw BenchError(
                    "building labelreplay failed (swift build exited with status \(outcome.status)); build it yourself and pass --labelreplay PATH. Its output:\n\(output.suffix(2_000))\(errors.suffix(2_000))"
                )
            }
            return output
        }
        _ = try swift(false)
        let binPath = try swift(true).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").last.map(String.init) ?? ""
        let path = binPath + "/labelreplay"
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw BenchError(
                "swift build reported the binaries in '\(binPath)', but there is no labelreplay there; pass --labelreplay PATH")
        }
        return path
    }
}
