#if Postgres
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The one OS call of the PostgreSQL backend: waiting for a socket to become readable or writable.
enum SocketWait {
    /// Waits up to `milliseconds` for `socket` to be readable (or closed, or in
    /// error); returns whether it is. An interrupted wait returns `false`.
    static func readable(_ socket: Int32, milliseconds: Int32) -> Bool {
        ready(socket, forWriting: false, milliseconds: milliseconds)
    }

    /// Waits up to `milliseconds` for `socket` to be readable, or writable with
    /// `forWriting` (or closed, or in error); returns whether it is. An
    /// interrupted wait, or a socket of -1, returns `false`.
    static func ready(_ socket: Int32, forWriting: Bool, milliseconds: Int32) -> Bool {
        guard socket >= 0 else { return false }
        var descriptor = pollfd(fd: socket, events: Int16(forWriting ? POLLOUT : POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, max(0, milliseconds))
        return ready > 0
    }
}
#endif
