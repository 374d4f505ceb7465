import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A log or snapshot path that names a FIFO, a device, a socket or a directory:
/// every open refuses it at once, naming the path and what it is (a blocking
/// `open` of a FIFO used to hang `LogReader` and `labelreplay verify` forever).
@Suite struct SpecialFileTests {
    /// Every way the library opens a log or snapshot file.
    static func opens(_ path: String) -> [(String, @Sendable () throws -> Void)] {
        [
            ("LogReader", { _ = try LogReader(path: path) }),
            ("LogReader.scan", { _ = try LogReader.scan(path: path) }),
            ("LogWriter.open", { try LogWriter.open(path: path).close() }),
            ("LogWriter.open(createIfMissing)", { try LogWriter.open(path: path, options: .init(createIfMissing: true)).close() }),
            ("LogWriter.open(pointInTime)", { try LogWriter.open(path: path, options: .init(recovery: .pointInTime)).close() }),
            ("MappedFile", { _ = try MappedFile(path: path) }),
            ("SystemFile.open(readOnly)", { try SystemFile.open(path, .readOnly).close() }),
            ("SystemFile.open(readWrite)", { try SystemFile.open(path, .readWrite).close() })
        ]
    }

    @Test func aFIFOIsRefusedAtOnceByEveryOpenInsteadOfBlocking() async throws {
        let dir = TemporaryDirectory()
        let fifo = dir.file("pipe.labellog")
        try #require(mkfifo(fifo, 0o644) == 0)
        for (name, open) in Self.opens(fifo) {
            let error = await refusal(of: name, unblocking: fifo, open)
            #expect(error?.code == .notARegularFile, "\(name): \(String(describing: error))")
            #expect(error?.path == fifo, "\(name)")
            #expect(error?.message.contains("FIFO") == true, "\(name): \(String(describing: error))")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["pipe.labellog"], "nothing was created beside it")
    }

    @Test func aDirectoryADeviceAndASocketAreRefusedNamingWhatTheyAre() async throws {
        let dir = TemporaryDirectory()
        // Short, under /tmp: a socket path must fit sockaddr_un (104 bytes on Apple platforms).
        let socketPath = "/tmp/lst-\(UInt32.random(in: 0...UInt32.max)).sock"
        let listening = try bindSocket(at: socketPath)
        defer {
            close(listening)
            unlink(socketPath)
        }
        var cases = [(dir.path, "directory"), ("/dev/null", "character device"), (socketPath, "socket")]
        if let block = blockDevice() { cases.append((block, "block device")) }
        for (path, kind) in cases {
            for (name, open) in Self.opens(path) {
                let error = await refusal(of: name, unblocking: nil, open)
                #expect(error?.code == .notARegularFile, "\(name) of \(path): \(String(describing: error))")
                #expect(error?.path == path && error?.message.contains(kind) == true, "\(name) of \(path): \(String(describing: error))")
            }
        }
    }

    @Test func aRegularFileStillOpensAndItsDescriptorBlocksAsUsual() throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        try LogWriter.open(path: path, options: .init(createIfMissing: true)).close()
        let file = try SystemFile.open(path, .readWrite)
        defer { file.close() }
        #expect(fcntl(file.descriptor, F_GETFL) & O_NONBLOCK == 0, "O_NONBLOCK is cleared after the type check")
        #expect(fcntl(file.descriptor, F_GETFD) & FD_CLOEXEC != 0)
        #expect(try file.size() == Int64(LogFormat.headerLength))
    }
}

/// Runs `open` on a thread of its own and returns the error it threw (`nil`
/// if it opened). If it has not returned within 10 s it is blocked, which is
/// recorded as a failure; the FIFO is then opened for writing to release it,
/// so that a regression fails the test instead of hanging the run.
func refusal(of name: String, unblocking fifo: String?, _ open: @escaping @Sendable () throws -> Void) async -> EventLogError? {
    let outcome = Locked<EventLogError??>(nil)
    let thread = Thread {
        var result: EventLogError?
        do { try open() } catch let error as EventLogError { result = error } catch { result = EventLogError(.ioError, "\(error)") }
        outcome.withLock { $0 = .some(result) }
    }
    thread.start()
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(10)
    while outcome.withLock({ $0 == nil }) && clock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
    if outcome.withLock({ $0 == nil }) {
        Issue.record("\(name) blocked for 10 s opening \(fifo ?? "a special file")")
        guard let fifo else { return nil }
        while outcome.withLock({ $0 == nil }) {
            let fd = openRaw(fifo, O_WRONLY | O_NONBLOCK)
            if fd >= 0 { close(fd) }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
    return outcome.withLock { $0 ?? nil }
}

private func openRaw(_ path: String, _ flags: Int32) -> Int32 {
    #if canImport(Glibc)
    Glibc.open(path, flags)
    #else
    Darwin.open(path, flags)
    #endif
}

/// A Unix-domain socket bound at `path` (the file it creates is a socket).
func bindSocket(at path: String) throws -> Int32 {
    #if canImport(Glibc)
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let fd = socket(AF_UNIX, SOCK_STREAM, 0)
    #endif
    try #require(fd >= 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    try #require(bytes.count < MemoryLayout.size(ofValue: address.sun_path), "socket path too long: \(path)")
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    try #require(bound == 0, "bind: errno \(errno)")
    return fd
}

/// A block device this process can see, if any (containers often have none).
func blockDevice() -> String? {
    for candidate in ["/dev/loop0", "/dev/sda", "/dev/vda", "/dev/nvme0n1", "/dev/disk0"] {
        var st = stat()
        if stat(candidate, &st) == 0 && (st.st_mode & S_IFMT) == S_IFBLK { return candidate }
    }
    return nil
}
