import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a command to its end with `posix_spawn` and `waitpid`, collecting its
/// output. (Foundation's `Process.waitUntilExit()` was seen to wait for ever
/// on Linux for a script whose daemon grandchild outlives it; a direct
/// `waitpid` does not depend on how SIGCHLD is observed.)
package func runCommand(
    _ path: String, _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment
) throws -> (status: Int32, output: String, errors: String) {
    var outPipe: [Int32] = [0, 0]
    var errPipe: [Int32] = [0, 0]
    guard closedOnSpawnPipe(&outPipe), closedOnSpawnPipe(&errPipe) else { throw POSIXError(.EMFILE) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
    posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
    for fd in outPipe + errPipe { posix_spawn_file_actions_addclose(&actions, fd) }
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        for pointer in argv { free(pointer) }
        for pointer in envp { free(pointer) }
    }
    var pid: pid_t = 0
    spawnLock.lock()
    let spawned = posix_spawn(&pid, path, &actions, nil, argv, envp)
    spawnLock.unlock()
    close(outPipe[1])
    close(errPipe[1])
    guard spawned == 0 else {
        close(outPipe[0])
        close(errPipe[0])
        throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .ENOENT)
    }
    // Read both pipes on two threads, so neither fills while the other is read.
    let errors = ReadAll(errPipe[0])
    let reader = Thread { errors.run() }
    reader.start()
    let output = ReadAll(outPipe[0])
    output.run()
    errors.done.wait()
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    return (exit, String(decoding: output.bytes, as: UTF8.self), String(decoding: errors.bytes, as: UTF8.self))
}

/// A pipe whose ends no other spawned process inherits (close-on-exec from the
/// start): a command spawned by another thread at the same moment would
/// otherwise hold this pipe's write end open, and the read of this command's
/// output would wait until that one ends (seen: a `psql` holding a lock for
/// minutes kept a quick `psql` check beside it from returning).
/// Made under ``spawnLock``, which every spawn of ``runCommand(_:_:environment:)``
/// also holds, so no command it spawns sees the pipe before it is marked.
private func closedOnSpawnPipe(_ ends: inout [Int32]) -> Bool {
    spawnLock.lock()
    defer { spawnLock.unlock() }
    guard pipe(&ends) == 0 else { return false }
    for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    return true
}

/// Held while a pipe is made and marked close-on-exec, and while a command is spawned.
private let spawnLock = NSLock()

/// Reads a file descriptor to its end, then closes it.
private final class ReadAll: @unchecked Sendable {
    let fd: Int32
    var bytes: [UInt8] = []
    let done = DispatchSemaphore(value: 0)

    init(_ fd: Int32) { self.fd = fd }

    func run() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                bytes += buffer[0..<n]
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        close(fd)
        done.signal()
    }
}
