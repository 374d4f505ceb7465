#if Postgres
import EventLog
import Foundation
import LabelStorePostgres
import LabelStoreTestSupport
import Testing

/// Several processes, each with several stores, write one list with
/// conflicting commands (the child is `logtorture server-stores`): every
/// store in every process ends equal to the fold of the stored history, its
/// followers heard every seq once, in order, and its subscribers exactly
/// their dependencies' events.
@Suite struct MultiProcessTests {
    @Test func processesTimesStoresWritingOneListAgree() throws {
        let server = PostgresTestServer.shared
        let location = server.location()
        let setup = try server.open(location)
        defer { setup.close() }
        try setup.append((0..<6).map { LogEntry(.added(id: testID(9000 + $0), title: "label \($0)", isEnabled: true, index: 0)) })
        let processes = 3
        var children: [(Process, FileHandle, FileHandle)] = []
        for p in 0..<processes {
            let process = Process()
            process.executableURL = try tortureExecutable()
            process.arguments = ["server-stores", server.conninfo, location.list, "3", "25", "\(p + 1)"]
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            children.append((process, input.fileHandleForWriting, output.fileHandleForReading))
        }
        for (_, _, output) in children {
            #expect(readLine(output) == "done")
        }
        let last = try setup.refreshLastSeq()
        #expect(last > 6 + 50, "the processes wrote (\(last) records)")
        for (_, input, _) in children { input.write(Data("check \(last)\n".utf8)) }
        for (p, (process, _, output)) in children.enumerated() {
            let line = readLine(output)
            #expect(line == "ok 3", "process \(p): \(line ?? "no answer")")
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
    }

    /// One line of a child's output (without the newline), or `nil` at its end.
    func readLine(_ handle: FileHandle) -> String? {
        var bytes: [UInt8] = []
        while true {
            let byte = handle.readData(ofLength: 1)
            guard let first = byte.first else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if first == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(first)
        }
    }
}
#endif
