#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An operating-system call that failed, with its `errno`.
struct SystemError: Error, Sendable {
    /// The `errno` value.
    let code: Int32
    /// What could not be done, e.g. `cannot read standard input`.
    let what: String
}

extension Platform {
    /// `errno` in words, with its symbolic name: `permission denied (EACCES)`.
    static func describe(errno code: Int32) -> String {
        let words = strerror(code).map { String(cString: $0) } ?? "error \(code)"
        let lowered = words.prefix(1).lowercased() + words.dropFirst()
        return errnoName(code).map { "\(lowered) (\($0))" } ?? lowered
    }

    /// The symbolic name of the `errno` values a log's file operations meet (`EACCES`), or `nil`.
    static func errnoName(_ code: Int32) -> String? {
        let names: [(Int32, String)] = [
            (EPERM, "EPERM"), (ENOENT, "ENOENT"), (EINTR, "EINTR"), (EIO, "EIO"), (EBADF, "EBADF"), (EAGAIN, "EAGAIN"),
            (ENOMEM, "ENOMEM"), (EACCES, "EACCES"), (EBUSY, "EBUSY"), (EEXIST, "EEXIST"), (EXDEV, "EXDEV"),
            (ENOTDIR, "ENOTDIR"), (EISDIR, "EISDIR"), (EINVAL, "EINVAL"), (ENFILE, "ENFILE"), (EMFILE, "EMFILE"),
            (ETXTBSY, "ETXTBSY"), (EFBIG, "EFBIG"), (ENOSPC, "ENOSPC"), (ESPIPE, "ESPIPE"), (EROFS, "EROFS"),
            (EPIPE, "EPIPE"), (ENAMETOOLONG, "ENAMETOOLONG"), (ELOOP, "ELOOP"), (EDQUOT, "EDQUOT"), (ENOLCK, "ENOLCK"),
            (EWOULDBLOCK, "EWOULDBLOCK"), (EOPNOTSUPP, "EOPNOTSUPP")
        ]
        return names.first { $0.0 == code }?.1
    }
}
