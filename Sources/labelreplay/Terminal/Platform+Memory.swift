#if canImport(Glibc)
import Glibc
#endif

extension Platform {
    /// Blocks at least this large are mapped on their own and unmapped when freed (glibc).
    static let separatelyMappedBlockBytes: Int32 = 2 << 20

    /// What the allocator does with a large block once it is freed (glibc;
    /// Darwin's allocator already returns large blocks, and elsewhere nothing changes).
    enum LargeBlockUse: Sendable {
        /// Given back to the system at once, so the process's resident memory
        /// follows what it holds: blocks of ``separatelyMappedBlockBytes`` or more
        /// are mapped on their own.
        ///
        /// glibc maps a block of 128 KiB or more on its own only until the first
        /// such block is freed; from then on it raises that threshold (up to
        /// 32 MiB) and serves the next ones from its heaps, which keep freed
        /// memory. A command that works in phases (`import`: the records, then
        /// the three history caches on two threads) then holds every phase's
        /// arrays at once: 137 MB peak resident against 93 MB with the threshold
        /// fixed (fixing it turns the raising off; Benchmarks/README.md, "The
        /// memory of import"). The default.
        case returnedToTheSystem
        /// Kept for the next allocations: blocks up to 32 MiB come from the
        /// heaps, which are trimmed only once 1 GiB is free. For a command that
        /// makes and drops one list after another (`trace`, `timeline`), whose
        /// every new list would otherwise be fresh pages, each faulted in and
        /// zeroed again: `trace --label` of a 12-event label on a
        /// 1,000,000-event history 0.22–0.24 → 0.17–0.18 s, at 128 MB peak
        /// resident instead of 80–100 (Benchmarks/README.md, "Freed lists kept
        /// for reuse"). `diff`, two lists, gained 5 % for 22 MB more: not used there.
        case keptForReuse
    }

    /// Sets what the allocator does with freed large blocks, for the whole
    /// process: called once by the executable before it runs a command, with
    /// the command's ``Command/largeBlocks`` (never by the libraries).
    static func useLargeBlocks(_ use: LargeBlockUse) {
        #if canImport(Glibc)
        // mallopt(option, value) is not in the Glibc module, so it is found by name.
        // M_TRIM_THRESHOLD is -1, M_MMAP_THRESHOLD -3; setting either turns off glibc's raising of the latter.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let process = dlopen(nil, RTLD_NOW) else { return }
        defer { dlclose(process) }
        guard let symbol = dlsym(process, "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        switch use {
        case .returnedToTheSystem:
            _ = mallopt(-3, separatelyMappedBlockBytes)
        case .keptForReuse:
            _ = mallopt(-3, 32 << 20)
            _ = mallopt(-1, 1 << 30)
        }
        #endif
    }
}
