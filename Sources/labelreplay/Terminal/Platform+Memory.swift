#if canImport(Glibc)
import Glibc
#endif

extension Platform {
    /// Blocks at least this large are mapped on their own and unmapped when freed (glibc).
    static let separatelyMappedBlockBytes: Int32 = 2 << 20

    /// Makes the allocator give large blocks back to the system when they are
    /// freed, so the process's resident memory follows what it holds.
    ///
    /// glibc maps a block of 128 KiB or more on its own only until the first
    /// such block is freed; from then on it raises that threshold (up to
    /// 32 MiB) and serves the next ones from its heaps, which keep freed
    /// memory. A command that works in phases (`import`: the records, then
    /// the three history caches on two threads) then holds every phase's
    /// arrays at once: 137 MB peak resident against 93 MB with the threshold
    /// fixed at ``separatelyMappedBlockBytes`` (fixing it turns the raising
    /// off; Benchmarks/README.md, "The memory of import"). Darwin's allocator
    /// already returns large blocks; elsewhere this does nothing. Called once,
    /// by the executable before it runs a command (never by the libraries:
    /// it changes the whole process).
    static func returnLargeBlocksToTheSystem() {
        #if canImport(Glibc)
        // mallopt(M_MMAP_THRESHOLD, bytes); not in the Glibc module, so found by name. M_MMAP_THRESHOLD is -3.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let process = dlopen(nil, RTLD_NOW) else { return }
        defer { dlclose(process) }
        guard let mallopt = dlsym(process, "mallopt") else { return }
        _ = unsafeBitCast(mallopt, to: Mallopt.self)(-3, separatelyMappedBlockBytes)
        #endif
    }
}
