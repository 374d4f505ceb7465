import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// The titles' block codec of `LOG.checkpoints` format 5 (`TitleCompression`,
/// docs/SNAPSHOTS.md "Compressed titles"): every input comes back byte for
/// byte, repetitive titles shrink, incompressible bytes grow by no more than
/// the stated bound, and no damaged block traps or writes out of bounds: each
/// throws or decodes to the output's size.
@Suite struct TitleCompressionTests {
    func compressed(_ input: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        input.withUnsafeBytes { TitleCompression.compress($0, appendingTo: &out) }
        return out
    }

    func decompressed(_ block: [UInt8], count: Int) throws(TitleCompression.Failure) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        try block.withUnsafeBytes { raw in
            out.withUnsafeMutableBytes { dst in
                Result { () throws(TitleCompression.Failure) in try TitleCompression.decompress(raw, into: dst) }
            }
        }.get()
        return out
    }

    /// Titles as people type them: words from a small vocabulary, some not ASCII.
    static func titles(_ count: Int, rng: inout SeededGenerator) -> [UInt8] {
        let words = [
            "Work", "Home", "Urgent", "Later", "Project", "Review", "Groceries", "Travel", "Büro", "Café", "Ελλάδα", "東京", "🏷️ Tags"
        ]
        var bytes: [UInt8] = []
        for _ in 0..<count {
            let title = (0..<Int.random(in: 1...5, using: &rng)).map { _ in words.randomElement(using: &rng)! }.joined(separator: " ")
            bytes += Array(title.utf8)
        }
        return bytes
    }

    @Test func everyInputComesBackByteForByte() throws {
        var rng = SeededGenerator(seed: 0x7171)
        var inputs: [[UInt8]] = [[], [7], [1, 2, 3], [UInt8](repeating: 0x41, count: 1_000), Array("abcabcabcabcabcabcab".utf8)]
        inputs.append((0..<70_000).map { _ in UInt8.random(in: 0...255, using: &rng) })
        inputs.append(Self.titles(30_000, rng: &rng))  // beyond one 64 KiB window
        inputs.append((0..<5_000).map { _ in UInt8.random(in: 0...3, using: &rng) })
        // Matches that overlap what they copy at every distance a copy treats apart (below 8, 8–15, 16 on),
        // shorter and longer than 16 bytes, and ending near the end of the output.
        for period in 1...20 {
            let unit = (0..<period).map { UInt8(65 + $0) }
            for total in [period + 5, period + 15, period + 17, 40, 200] {
                inputs.append(Array((0..<total).map { unit[$0 % period] }))
                inputs.append(Array("x".utf8) + (0..<total).map { unit[$0 % period] } + Array("yz".utf8))
            }
        }
        for input in inputs {
            let block = compressed(input)
            #expect(try decompressed(block, count: input.count) == input, "\(input.count) bytes")
            #expect(block.count <= TitleCompression.maximumCompressedCount(input.count), "\(input.count) bytes: \(block.count)")
        }
    }

    @Test func repetitiveTitlesShrinkToUnderHalf() {
        var rng = SeededGenerator(seed: 0x7172)
        let input = Self.titles(20_000, rng: &rng)
        let block = compressed(input)
        #expect(block.count * 2 < input.count, "\(block.count) of \(input.count) bytes")
        #expect(compressed(input) == block, "deterministic")
    }

    @Test func everyTruncationThrowsNamingAByteOffset() {
        var rng = SeededGenerator(seed: 0x7173)
        let input = Self.titles(300, rng: &rng)
        let block = compressed(input)
        for cut in 0..<block.count {
            do {
                _ = try decompressed(Array(block.prefix(cut)), count: input.count)
                Issue.record("a block cut to \(cut) of \(block.count) bytes decoded")
            } catch {
                #expect(error.message.contains("byte"), "\(error.message)")
            }
        }
    }

    @Test func damagedBlocksThrowOrFillTheOutputWithoutTrapping() {
        var rng = SeededGenerator(seed: 0x7174)
        let input = Self.titles(200, rng: &rng)
        let block = compressed(input)
        var threw = 0
        for _ in 0..<3_000 {
            var damaged = block
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                damaged[Int.random(in: 0..<damaged.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            // A wrong output size must be refused too, or filled exactly.
            let count = input.count + Int.random(in: -2...2, using: &rng)
            do { #expect(try decompressed(damaged, count: max(0, count)).count == max(0, count)) } catch { threw += 1 }
        }
        #expect(threw > 1_000, "most damage is caught: \(threw) of 3,000")
    }

    @Test(
        arguments: [
            ([0x00, 0x00], "the match offset at byte 1 runs past the end"),  // the empty block's token and a stray byte
            ([0x10, 0x41, 0x00, 0x00], "match offset 0 at byte 2"),
            ([0x10, 0x41, 0x05, 0x00], "match offset 5 at byte 2 reaches before the output's start"),
            ([0x1F, 0x41, 0x01, 0x00, 0xFF, 0xFF, 0xFF], "match length at byte"),
            ([0x20, 0x41], "the 2 literals of the sequence at byte 0 run past the end of the block"),
            ([0x10, 0x41, 0x01, 0x00], "the block ends at byte 4 in the middle of a sequence")
        ] as [([UInt8], String)])
    func malformedBlocksAreRefusedByName(block: [UInt8], reason: String) {
        #expect {
            _ = try decompressed(block, count: 6)
        } throws: { error in
            (error as? TitleCompression.Failure)?.message.contains(reason) == true
        }
    }
}
