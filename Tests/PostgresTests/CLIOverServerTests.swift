#if Postgres
import EventLog
import Foundation
import LabelStorePostgres
import LabelStoreTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `labelreplay` (built with the trait) over a list on the test server:
/// `init`, writes and reads through a `postgres://` LOG, `copy` both ways and
/// `--follow`, and errors that never show a password.
@Suite(.serialized) struct CLIOverServerTests {
    /// The built `labelreplay`.
    static func executable() throws -> String {
        guard let url = BuiltProducts.executable(named: "labelreplay") else {
            throw EventLogError(.fileNotFound, "labelreplay not found next to the tests; run `swift build --traits Postgres` first")
        }
        return url.path
    }

    /// A `postgresql://` URL for `list` on the test server (Unix socket, user postgres).
    static func url(list: String = "cli-\(UUID().uuidString.prefix(8))", schema: String? = nil) -> String {
        var pairs: [String: String] = [:]
        for pair in PostgresTestServer.shared.conninfo.split(separator: " ") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { pairs[String(parts[0])] = String(parts[1]) }
        }
        let database = pairs["dbname"] ?? "postgres"
        var text = "postgresql:///\(database)?host=\(pairs["host"] ?? "/tmp")&user=\(pairs["user"] ?? "postgres")&list=\(list)"
        if let schema { text += "&schema=\(schema)" }
        return text
    }

    /// Runs `labelreplay arguments…` to its end.
    static func cli(_ arguments: [String], environment extra: [String: String] = [:]) throws -> (
        status: Int32, output: String, errors: String
    ) {
        try runCommand(try executable(), arguments, environment: ProcessInfo.processInfo.environment.merging(extra) { $1 })
    }

    @Test func initCreatesTheSchemaAndTheListOnce() throws {
        let schema = "cli_\(UUID().uuidString.prefix(8).lowercased())"
        let location = Self.url(schema: schema)
        let first = try Self.cli(["init", location, "--json"])
        #expect(first.status == 0, "\(first)")
        #expect(first.output.contains("\"createdSchema\":true") && first.output.contains("\"createdList\":true"), "\(first)")
        let second = try Self.cli(["init", location])
        #expect(second.status == 0 && second.output.contains("already exists"), "\(second)")
        let other = try Self.cli(["init", Self.url(schema: schema)])
        #expect(other.status == 0 && other.output.hasPrefix("created list"), "\(other)")
    }

    @Test func aMissingListOrSchemaSuggestsInit() throws {
        let missingSchema = Self.url(schema: "cli_none_\(UUID().uuidString.prefix(6).lowercased())")
        let shown = try Self.cli(["show", missingSchema])
        #expect(shown.status == 1 && shown.errors.contains("no label store schema"), "\(shown)")
        #expect(shown.errors.contains("'labelreplay init "), "\(shown)")
        _ = try Self.cli(["init", Self.url()])  // the default schema exists
        let missingList = Self.url()
        let added = try Self.cli(["add", missingList, "Amber"])
        #expect(added.status == 1 && added.errors.contains("there is no list") && added.errors.contains("'labelreplay init "), "\(added)")
    }

    @Test func writesAndReadsThroughAServerURL() throws {
        let location = Self.url()
        #expect(try Self.cli(["init", location]).status == 0)
        let added = try Self.cli(["add", location, "Amber", "--actor", "row-ui", "--note", "first"])
        #expect(added.status == 0, "\(added)")
        let id = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try Self.cli(["add", location, "Tile", "--disabled"]).status == 0)
        let renamed = try Self.cli(["rename", location, String(id.prefix(8)), "Copper", "--json"])
        #expect(
            renamed.status == 0 && renamed.output.contains("\"kind\":\"renamed\"") && renamed.output.contains("\"seq\":3"), "\(renamed)")
        let shown = try Self.cli(["show", location, "--json"])
        #expect(shown.status == 0 && shown.output.contains("\"title\":\"Copper\"") && shown.output.contains("\"count\":2"), "\(shown)")
        let log = try Self.cli(["log", location, "--json"])
        let lines = log.output.split(separator: "\n")
        #expect(log.status == 0 && lines.count == 3, "\(log)")
        #expect(lines.first?.contains("\"actor\":\"row-ui\"") == true && lines.first?.contains("\"note\":\"first\"") == true)
        let verified = try Self.cli(["verify", location, "--json"])
        #expect(verified.status == 0 && verified.output.contains("\"ok\":true") && verified.output.contains("\"lastSeq\":3"), "\(verified)")
        let refused = try Self.cli(["repair", location])
        #expect(refused.status == 64 && refused.errors.contains("works on log files only"), "\(refused)")
    }

    @Test func copyFileToServerToFileIsByteIdenticalOnExport() throws {
        let directory = TemporaryDirectory()
        let original = directory.file("a.labellog")
        for title in ["Amber", "Tile", "Ring"] { #expect(try Self.cli(["add", original, title, "--actor", "setup"]).status == 0) }
        let location = Self.url()
        let up = try Self.cli(["copy", original, location, "--json"])
        #expect(up.status == 0 && up.output.contains("\"copied\":3") && up.output.contains("\"created\":true"), "\(up)")
        let back = directory.file("b.labellog")
        let down = try Self.cli(["copy", location, back, "--json"])
        #expect(down.status == 0 && down.output.contains("\"copied\":3"), "\(down)")
        let exported = try Self.cli(["export", original]).output
        #expect(!exported.isEmpty)
        #expect(try Self.cli(["export", location]).output == exported)
        #expect(try Self.cli(["export", back]).output == exported)
    }

    @Test func copyRefusesADivergingServerDestination() throws {
        let directory = TemporaryDirectory()
        let source = directory.file("a.labellog")
        for title in ["Amber", "Tile"] { #expect(try Self.cli(["add", source, title]).status == 0) }
        let location = Self.url()
        #expect(try Self.cli(["init", location]).status == 0)
        #expect(try Self.cli(["add", location, "Amber"]).status == 0)  // another record at seq 1
        let refused = try Self.cli(["copy", source, location])
        #expect(refused.status == 1 && refused.errors.contains("seq 1 differs"), "\(refused)")
        let log = try Self.cli(["log", location, "--json"])
        #expect(log.output.split(separator: "\n").count == 1)
    }

    @Test func copyFollowPicksUpAppendsUntilInterrupted() throws {
        let directory = TemporaryDirectory()
        let location = Self.url()
        #expect(try Self.cli(["init", location]).status == 0)
        #expect(try Self.cli(["add", location, "Amber"]).status == 0)
        let mirror = directory.file("mirror.labellog")
        let child = try Background(try Self.executable(), ["copy", location, mirror, "--follow", "--json"], directory: directory.path)
        defer { child.terminate() }
        #expect(try Self.waitUntil { Self.lastSeq(of: mirror) == 1 })
        for title in ["Tile", "Ring"] { #expect(try Self.cli(["add", location, title]).status == 0) }
        #expect(try Self.waitUntil { Self.lastSeq(of: mirror) == 3 })
        let (status, output) = try child.interrupt()
        #expect(status == 0, "\(output)")
        #expect(output.contains("\"copied\":3") && output.contains("\"lastSeq\":3"), "\(output)")
        #expect(try Self.cli(["export", mirror]).output == (try Self.cli(["export", location]).output))
    }

    @Test func logFollowPrintsWhatAnotherProcessAppends() throws {
        let directory = TemporaryDirectory()
        let location = Self.url()
        #expect(try Self.cli(["init", location]).status == 0)
        #expect(try Self.cli(["add", location, "Amber"]).status == 0)
        let child = try Background(try Self.executable(), ["log", location, "--follow", "--json"], directory: directory.path)
        defer { child.terminate() }
        usleep(500_000)
        #expect(try Self.cli(["add", location, "Followed"]).status == 0)
        #expect(try Self.waitUntil { ((try? String(contentsOfFile: child.output, encoding: .utf8)) ?? "").contains("\"Followed\"") })
        let (status, output) = try child.interrupt()
        #expect(status == 130 && !output.contains("\"Amber\""), "\(output)")
    }

    @Test func aReconnectWindowThatIsNotANumberIsAUsageError() throws {
        let result = try Self.cli(["show", Self.url(list: "x")], environment: ["LABELREPLAY_RECONNECT_TIMEOUT": "soon"])
        #expect(result.status == 64 && result.errors.contains("LABELREPLAY_RECONNECT_TIMEOUT='soon'"), "\(result)")
    }

    @Test func wrongCredentialsAndAnUnreachableServerNeverShowThePassword() throws {
        let host =
            PostgresTestServer.shared.conninfo.split(separator: " ").first { $0.hasPrefix("host=") }.map { String($0.dropFirst(5)) }
            ?? "/tmp"
        let cases = [
            "postgres://nobody:hunter2@/postgres?host=\(host)&list=x",
            "postgres://nobody:hunter2@127.0.0.1:1/postgres?list=x&connect_timeout=2",
            "postgres://nobody@/postgres?host=\(host)&list=x&password=hunter2"
        ]
        for location in cases {
            for arguments in [
                ["show", location], ["log", location, "--json"], ["add", location, "Amber", "--json"], ["init", location, "--json"]
            ]
                + [["verify", location, "--json"], ["copy", location, "/dev/null/x.labellog", "--json"]]
            {
                // An unreachable server is retried within the reconnect window (1 s here), saying so first.
                let result = try Self.cli(arguments, environment: ["LABELREPLAY_RECONNECT_TIMEOUT": "1"])
                #expect(result.status == 1, "\(arguments): \(result)")
                let errorLine = result.errors.hasPrefix("error: ") || result.errors.contains("\nerror: ")
                #expect(errorLine || result.output.contains("\"ok\":false"), "\(arguments): \(result)")
                #expect(!result.errors.contains("hunter2") && !result.output.contains("hunter2"), "\(arguments): \(result)")
            }
        }
    }

    /// The last seq of the log file at `path` (0 when missing or empty).
    static func lastSeq(of path: String) -> UInt64 {
        guard let reader = try? LogReader(path: path) else { return 0 }
        try? reader.skip(toSeq: .max)
        return reader.nextSeq - 1
    }

    /// Polls `condition` every 50 ms for up to 20 s.
    static func waitUntil(_ condition: () throws -> Bool) throws -> Bool {
        for _ in 0..<400 {
            if try condition() { return true }
            usleep(50_000)
        }
        return false
    }
}

/// A command running in the background (posix_spawn, output to a file), waited for with `waitpid`.
final class Background {
    let pid: pid_t
    let output: String
    private var reaped = false

    init(_ path: String, _ arguments: [String], directory: String) throws {
        output = directory + "/background-\(UUID().uuidString).out"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, output + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .ENOENT) }
        self.pid = pid
    }

    /// Sends SIGINT and waits for the exit; returns the exit status (or 128 + signal) and what it printed.
    func interrupt() throws -> (status: Int32, output: String) {
        kill(pid, SIGINT)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        reaped = true
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let out = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: output + ".err", encoding: .utf8)) ?? ""
        return (code, out + err)
    }

    /// Waits (polling, up to 60 s) for it to exit by itself; returns the exit
    /// status and what it printed, or `nil` (and kills it) if it did not.
    func exitByItself() -> (status: Int32, output: String)? {
        var status: Int32 = 0
        for _ in 0..<1200 {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid {
                self.reaped = true
                let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                return (code, printed())
            }
            usleep(50_000)
        }
        terminate()
        return nil
    }

    /// Everything it printed so far: standard output, then standard error.
    func printed() -> String {
        let out = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: output + ".err", encoding: .utf8)) ?? ""
        return out + err
    }

    /// Kills it if it still runs (a failed test).
    func terminate() {
        guard !reaped else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        reaped = true
    }
}
#endif
