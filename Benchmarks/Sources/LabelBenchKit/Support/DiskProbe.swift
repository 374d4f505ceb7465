import Foundation

/// The disk's limit for the batch appends' I/O pattern, without encoding:
/// the same bytes per batch written with one `pwrite` each and one
/// `fdatasync` after each, into a file preallocated (zeros written and synced,
/// untimed) as the log preallocates its space, so only the data syncs remain.
enum DiskProbe {
    /// The byte count of each append, from the file's size before the first and after each
    /// (`sizes[0]` the header-only size, then one size per append).
    static func batchByteCounts(fileSizes sizes: [Int64]) -> [Int] {
        zip(sizes.dropFirst(), sizes).map { Int($0 - $1) }
    }

    /// Events per second of `events` events in `elapsed` (the limit, or ours).
    static func eventsPerSecond(events: Int, elapsed: Duration) -> Double {
        Statistics.rate(events: events, in: elapsed)
    }

    /// Ours as a share of the disk's limit (1 = as fast as the disk allows).
    static func shareOfLimit(ours: Double, limit: Double) -> Double {
        limit > 0 ? ours / limit : .nan
    }

    /// Preallocates a file at `path` for `batches`, then times one `pwrite` of
    /// each batch's bytes plus an `fdatasync`, in order; removes the file.
    static func run(path: String, batches: [Int]) throws -> Duration {
        let fd = open(path, O_CREAT | O_EXCL | O_RDWR, 0o600)
        guard fd >= 0 else { throw BenchError("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer {
            close(fd)
            unlink(path)
        }
        let total = batches.reduce(0, +)
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        var at = 0
        while at < total {
            let n = min(zeros.count, total - at)
            guard zeros.withUnsafeBytes({ pwrite(fd, $0.baseAddress, n, off_t(at)) }) == n else {
                throw BenchError("cannot preallocate \(path): \(String(cString: strerror(errno)))")
            }
            at += n
        }
        guard fsync(fd) == 0 else { throw BenchError("fsync of \(path) failed: \(String(cString: strerror(errno)))") }
        let block = [UInt8](repeating: 0xA5, count: batches.max() ?? 0)
        ScratchSpace.flushFileSystems()
        var offset = 0
        return try Statistics.time {
            for count in batches {
                let written = block.withUnsafeBytes { pwrite(fd, $0.baseAddress, count, off_t(offset)) }
                guard written == count, fdatasync(fd) == 0 else {
                    throw BenchError("the disk probe's write at \(offset) in \(path) failed: \(String(cString: strerror(errno)))")
                }
                offset += count
            }
        }
    }
}
