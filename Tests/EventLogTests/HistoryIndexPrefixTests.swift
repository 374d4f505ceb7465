import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// What an id prefix can mean, from the index's label directory read only
/// where such ids sort (``HistoryIndex/labelIDs(startingWith:)``): the same
/// ids as every id the index names filtered by their text, for prefixes of
/// every length (none, one digit, a chunk boundary's worth, a whole id, one
/// that matches nothing), in one part and in several.
@Suite struct HistoryIndexPrefixTests {
    typealias T = HistoryIndexTests

    /// `id`'s 32 hex digits, lowercase: the reference the prefix is matched against.
    static func digits(_ id: LabelID) -> String { id.description.replacingOccurrences(of: "-", with: "").lowercased() }

    static func nibbles(_ prefix: String) -> [UInt8] { prefix.compactMap(\.hexDigitValue).map(UInt8.init) }

    /// Every prefix asked about: none, each single digit, random ones of 2–5
    /// digits, the first 1–32 digits of some ids, and digits no id starts with.
    static func prefixes(_ ids: [LabelID], rng: inout SeededGenerator) -> [String] {
        let hex = Array("0123456789abcdef")
        var prefixes = [""] + hex.map { String($0) }
        for _ in 0..<60 { prefixes.append(String((0..<Int.random(in: 2...5, using: &rng)).map { _ in hex.randomElement(using: &rng)! })) }
        for id in ids.shuffled(using: &rng).prefix(20) { prefixes.append(String(digits(id).prefix(Int.random(in: 1...32, using: &rng)))) }
        let taken = Set(ids.map { String(digits($0).prefix(6)) })
        prefixes.append(prefixes.last { $0.count == 6 && !taken.contains($0) } ?? "ffffff")
        return prefixes
    }

    func expectPrefixesMatchTheFilteredIDs(_ index: HistoryIndex, seed: UInt64) throws {
        let all = try index.labelIDs
        var rng = SeededGenerator(seed: seed)
        for prefix in Self.prefixes(all, rng: &rng) {
            let expected = all.filter { Self.digits($0).hasPrefix(prefix) }
            #expect(try index.labelIDs(startingWith: Self.nibbles(prefix)) == expected, "prefix '\(prefix)', seed \(seed)")
        }
    }

    /// 1,500 labels: six chunks of the directory, so single digits span chunk boundaries.
    @Test(arguments: [5, 6] as [UInt64])
    func aPrefixFindsTheIDsThatStartWithItInOnePart(seed: UInt64) throws {
        let dir = TemporaryDirectory()
        let path = dir.file()
        var rng = SeededGenerator(seed: seed)
        let ids = (0..<1_500).map { _ in LabelID() }
        let adds = ids.map { LogEntry(.added(id: $0, title: "t", isEnabled: true, index: 0)) }
        try T.append(adds + T.randomEntries(2_000, rng: &rng, ids: ids), to: path)
        let index = try HistoryIndexFile.update(logPath: path).index
        #expect(try index.labelIDs.count == 1_500)
        try expectPrefixesMatchTheFilteredIDs(index, seed: seed)
    }

    @Test func aPrefixFindsTheIDsThatStartWithItAcrossSegments() throws {
        let dir = TemporaryDirectory()
        let ids = (0..<700).map { _ in LabelID() }
        let (path, changes) = try HistoryIndexSegmentTests.segmentedLog(base: 2_000, rounds: 4, each: 900, seed: 8, ids: ids, dir: dir)
        #expect(changes.contains(.appendedSegment))
        guard case .usable(let index) = HistoryIndexFile.load(for: try LogReader(path: path)) else {
            Issue.record("the index is not usable")
            return
        }
        try expectPrefixesMatchTheFilteredIDs(index, seed: 8)
    }
}
