import Foundation

/// Preallocation: the file grows in steps of zero bytes ahead of the
/// records (``LogWriter/Options/preallocation``), so most appends change no
/// file size and their sync is a data sync.
extension LogWriter {
    /// Extends the file with zero bytes to a whole number of preallocation
    /// steps past `needed`, and (for syncing modes) syncs the new size once.
    /// A failed sync poisons the writer, like any other.
    func preallocate(_ s: inout State, file: any LogFile, needed: Int64, sync: Bool) throws(EventLogError) {
        let step = Self.preallocationStep(base: options.preallocation, allocated: s.allocated)
        let target = (needed + step - 1) / step * step
        let zeros = [UInt8](repeating: 0, count: Int(min(target - s.allocated, 256 << 10)))
        var at = s.allocated
        do throws(EventLogError) {
            while at < target {
                let n = Int(min(Int64(zeros.count), target - at))
                try zeros.withBytes { (raw) throws(EventLogError) in try file.write(UnsafeRawBufferPointer(rebasing: raw[0..<n]), at: at) }
                at += Int64(n)
            }
            if sync { try syncs.runSync({ () throws(EventLogError) in try file.syncAll() }, poisonFor: poisonError) }
        } catch {
            // Zero bytes past the records are harmless; give the space back if we can.
            try? file.truncate(to: s.allocated)
            throw error
        }
        s.allocated = target
    }

    /// The size of the next preallocation: the configured step, or, once the
    /// file is larger, an eighth of its size (in whole steps, at most 64 MiB),
    /// so a fast-growing log pays one metadata sync per 12.5% of growth
    /// instead of one per step.
    static func preallocationStep(base: Int64, allocated: Int64) -> Int64 {
        let proportional = min(64 << 20, allocated / 8) / base * base
        return max(base, proportional)
    }
}
