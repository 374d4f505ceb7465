import Foundation

/// Measures how long the scratch directory's device takes to make a small
/// append durable (`pwrite` of 4 KiB + `fdatasync`), so that a reader of the
/// table can tell "the code is slow" from "this disk's sync is slow": no
/// durable workload can beat one sync per acknowledgement.
enum SyncProbe {
    /// The median time of `count` appends of 4 KiB, each followed by `fdatasync`,
    /// in a file created in `directory` and removed afterwards; `nil` if the probe fails.
    static func medianSyncLatency(in directory: String, count: Int = 20) -> Duration? {
        let path = "\(directory)/sync-probe"
        let fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0o600)
        guard fd >= 0 else { return nil }
        defer {
            close(fd)
            unlink(path)
        }
        let block = [UInt8](repeating: 0xA5, count: 4096)
        let clock = ContinuousClock()
        var samples: [Double] = []
        for i in 0..<count {
            let start = clock.now
            let written = block.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(i * 4096)) }
            guard written == block.count, fdatasync(fd) == 0 else { return nil }
            samples.append(Statistics.seconds(clock.now - start))
        }
        return .nanoseconds(Int64(Statistics.median(samples) * 1e9))
    }
}
