import Foundation

extension FaultyFileSystem {
    /// How the unsynced changes fare in a simulated power loss.
    enum Loss: CaseIterable, Sendable {
        /// All unsynced changes are lost.
        case dropAll
        /// A prefix of them survives, the next one partly.
        case partial
        /// As `partial`, then the last 512-byte sector written holds garbage.
        case garbageSector
        /// As `partial`, then the last 512-byte sector written is zeroed.
        case zeroSector
        /// Out-of-order persistence: every 4 KiB page written since the last
        /// successful sync independently survives (holds what was written) or
        /// is lost (holds its last durable bytes, zeros past the durable end),
        /// so a later record's page can survive an earlier one's loss.
        case outOfOrderPages

        /// The kinds that keep the order of the writes (a prefix survives).
        static let inOrder: [Loss] = [.dropAll, .partial, .garbageSector, .zeroSector]
    }

    static let pageSize = 4096
    static let sectorSize = 512
}

extension FileHistory {
    /// The bytes the file could hold after a power loss now.
    func imageAfterPowerLoss(_ loss: FaultyFileSystem.Loss, using rng: inout some RandomNumberGenerator) -> [UInt8] {
        guard !pending.isEmpty else { return durable }
        switch loss {
        case .dropAll: return durable
        case .partial, .garbageSector, .zeroSector: return tornPrefixImage(loss, using: &rng)
        case .outOfOrderPages:
            // One coin per page, drawn in page order (reproducible from the seed).
            let pages = touchedPages.sorted()
            let kept = Set(pages.filter { _ in Bool.random(using: &rng) })
            return imageKeepingPages(kept, keepsPendingCut: Bool.random(using: &rng))
        }
    }

    /// The 4 KiB pages (indices) that changes since the last successful sync wrote to.
    var touchedPages: Set<Int> {
        var touched = Set<Int>()
        let page = FaultyFileSystem.pageSize
        for p in pending {
            if case .write(let offset, let bytes) = p.change, !bytes.isEmpty {
                for index in (offset / page)...((offset + bytes.count - 1) / page) { touched.insert(index) }
            }
        }
        return touched
    }

    private func tornPrefixImage(_ loss: FaultyFileSystem.Loss, using rng: inout some RandomNumberGenerator) -> [UInt8] {
        var image = durable
        let survivors = Int.random(in: 0..<pending.count, using: &rng)
        for p in pending[..<survivors] { Self.apply(p.change, to: &image) }
        var lastWrite: (offset: Int, end: Int)?
        for p in pending[..<survivors] {
            if case .write(let offset, let bytes) = p.change { lastWrite = (offset, offset + bytes.count) }
        }
        switch pending[survivors].change {
        case .write(let offset, let bytes):
            let kept = Int.random(in: 0...bytes.count, using: &rng)
            Self.write(bytes, prefix: kept, at: offset, to: &image)
            lastWrite = (offset, offset + kept)
        case .truncate:
            if Bool.random(using: &rng) { Self.apply(pending[survivors].change, to: &image) }
        }
        guard loss != .partial, let lastWrite else { return image }
        // Damage stays inside the bytes written since the sync (sectors are assumed to be
        // written atomically with respect to earlier synced data: "powersafe overwrite").
        let writes = pending.compactMap { p -> Range<Int>? in
            if case .write(let offset, let bytes) = p.change { return offset..<(offset + bytes.count) }
            return nil
        }
        guard let pendingStart = writes.map(\.lowerBound).min(), let pendingEnd = writes.map(\.upperBound).max() else { return image }
        let sectorStart = max(pendingStart, lastWrite.end / FaultyFileSystem.sectorSize * FaultyFileSystem.sectorSize)
        let sectorEnd = min(image.count, pendingEnd, sectorStart + FaultyFileSystem.sectorSize)
        guard sectorStart < sectorEnd else { return image }
        for i in sectorStart..<sectorEnd {
            image[i] = loss == .garbageSector ? UInt8.random(in: 0...255, using: &rng) : 0
        }
        return image
    }

    /// The out-of-order image in which exactly the written pages in `kept`
    /// hold what was written; every other page holds its durable bytes (zeros
    /// past the durable end). A pending net cut of the file is kept or not as a whole.
    func imageKeepingPages(_ kept: Set<Int>, keepsPendingCut: Bool = false) -> [UInt8] {
        var current = durable
        for p in pending { Self.apply(p.change, to: &current) }
        let page = FaultyFileSystem.pageSize
        let surviving = touchedPages.intersection(kept).sorted()
        let length: Int
        if current.count >= durable.count {
            // The size covers at least the last surviving page (the metadata went with it).
            let reach = surviving.last.map { min(($0 + 1) * page, current.count) } ?? 0
            length = max(durable.count, reach)
        } else {
            length = keepsPendingCut ? current.count : durable.count
        }
        var image = durable
        Self.resize(&image, to: length)
        for index in surviving {
            let start = index * page
            guard start < length else { continue }
            let end = min(start + page, length)
            let copied = max(0, min(end, current.count) - start)
            if copied > 0 { Self.write(Array(current[start..<(start + copied)]), prefix: copied, at: start, to: &image) }
            for i in (start + copied)..<end { image[i] = 0 }
        }
        return image
    }
}
