import Foundation

/// A private temporary directory for one benchmark run.
///
/// Every measurement gets a fresh subdirectory (``freshDirectory(_:)``),
/// which it removes when done; ``removeAll()`` removes the whole tree at
/// the end of the run (also after a failure).
final class ScratchSpace {
    /// The directory of this run, `<base>/labelbench-XXXXXX`.
    let root: String
    private var counter = 0

    /// Creates a unique directory under `base` (e.g. `/tmp`).
    init(base: String) throws {
        var template = Array("\(base)/labelbench-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else {
            throw BenchError("cannot create a scratch directory under \(base): \(String(cString: strerror(errno)))")
        }
        root = String(decoding: template.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A new, empty directory under ``root`` whose name starts with `name`.
    func freshDirectory(_ name: String) throws -> String {
        counter += 1
        let path = "\(root)/\(counter)-\(name)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    /// Removes `path` and everything in it; errors are ignored. With
    /// `LABELBENCH_KEEP_SCRATCH=1` in the environment nothing is removed, so
    /// a fixture can be profiled after the run.
    func remove(_ path: String) {
        if ProcessInfo.processInfo.environment["LABELBENCH_KEEP_SCRATCH"] == "1" { return }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Removes ``root`` and everything in it.
    func removeAll() {
        remove(root)
    }

    /// The size of the file at `path` in bytes, or 0 if there is none.
    static func fileSize(_ path: String) -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else { return 0 }
        return Int64(info.st_size)
    }

    /// Asks the kernel to write back all dirty pages, so that writeback left
    /// by a previous measurement (or a compiler next door) does not land in
    /// the next timed region.
    static func flushFileSystems() {
        sync()
    }
}
