import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// SHA-256 against FIPS 180-4's vectors, and the history tree (RFC 9162)
/// against Certificate Transparency's published vectors and against a naive
/// recursive reference written from the RFC's definitions.
@Suite struct HistoryTreeTests {
    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var iterator = text.makeIterator()
        while let high = iterator.next(), let low = iterator.next() { bytes.append(UInt8(String([high, low]), radix: 16)!) }
        return bytes
    }

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        )
    ])
    func sha256MatchesTheFIPSVectors(message: String, digest: String) {
        #expect(SHA256.digest(Array(message.utf8)).hex == digest)
    }

    @Test func sha256OfAMillionAsMatchesTheFIPSVector() {
        var hash = SHA256()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { chunk.withUnsafeBytes { hash.update($0) } }
        #expect(hash.finalize().hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Split anywhere, a message hashes as a whole; the tree's leaf and node
    /// hashes are SHA-256 of their prefixed bytes.
    @Test func incrementalHashingAndTheTreesHashesAgreeWithOneShotSHA256() {
        var random = SeededGenerator(seed: 0x5EED_0028)
        for length in [0, 1, 54, 55, 56, 63, 64, 65, 119, 120, 128, 200, 1000]
            + (0..<40).map({ _ in Int.random(in: 0..<700, using: &random) })
        {
            let message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let whole = SHA256.digest(message)
            var pieces = SHA256()
            var start = 0
            while start < length {
                let end = min(length, start + Int.random(in: 1...90, using: &random))
                message[start..<end].withUnsafeBytes { pieces.update($0) }
                start = end
            }
            #expect(pieces.finalize() == whole, "length \(length)")
            #expect(HistoryHash.leaf(payload: message) == SHA256.digest([0] + message))
        }
        let left = SHA256.digest(Array("left".utf8)), right = SHA256.digest(Array("right".utf8))
        #expect(HistoryHash.node(left, right) == SHA256.digest([1] + left.bytes + right.bytes))
    }

    static let vectorLeaves = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"].map(hex)

    /// The roots of the first n leaves, n = 0…8, as Certificate Transparency publishes them.
    static let vectorRoots = [
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
        "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"
    ]

    @Test func theBuildersRootsAreTheCertificateTransparencyVectors() {
        var builder = HistoryTreeBuilder()
        #expect(builder.root.hex == Self.vectorRoots[0])
        for (n, leaf) in Self.vectorLeaves.enumerated() {
            builder.append(payload: leaf)
            #expect(builder.root.hex == Self.vectorRoots[n + 1], "size \(n + 1)")
            #expect(builder.frontier.count == (n + 1).nonzeroBitCount)
        }
    }

    @Test func proofsMatchTheCertificateTransparencyVectors() {
        let leaves = Self.vectorLeaves.map { HistoryHash.leaf(payload: $0) }
        let inclusion = Self.proof(HistoryTree.inclusionRanges(leaf: 5, size: 8), leaves)
        #expect(
            inclusion.map(\.hex) == [
                "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
                "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
                "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"
            ])
        let consistency = Self.proof(HistoryTree.consistencyRanges(old: 3, new: 8), leaves)
        #expect(
            consistency.map(\.hex) == [
                "0298d122906dcfc10892cb53a73992fc5b9f493ea4c9badb27b791b4127a7fe7",
                "07506a85fd9dd2f120eb694f86011e5bb4662e5c415a62917033d4a9624487e7",
                "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
                "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"
            ])
    }

    // MARK: - The naive reference, straight from RFC 9162 §2.1

    static func k(_ n: Int) -> Int {
        var k = 1
        while k << 1 < n { k <<= 1 }
        return k
    }

    static func mth(_ leaves: ArraySlice<HistoryHash>) -> HistoryHash {
        if leaves.isEmpty { return .empty }
        if leaves.count == 1 { return leaves.first! }
        let split = leaves.startIndex + k(leaves.count)
        return .node(mth(leaves[..<split]), mth(leaves[split...]))
    }

    static func path(_ m: Int, _ leaves: ArraySlice<HistoryHash>) -> [HistoryHash] {
        if leaves.count <= 1 { return [] }
        let split = k(leaves.count)
        let middle = leaves.startIndex + split
        return m < split
            ? path(m, leaves[..<middle]) + [mth(leaves[middle...])]
            : path(m - split, leaves[middle...]) + [mth(leaves[..<middle])]
    }

    static func subproof(_ m: Int, _ leaves: ArraySlice<HistoryHash>, _ whole: Bool) -> [HistoryHash] {
        if m == leaves.count { return whole ? [] : [mth(leaves)] }
        let split = k(leaves.count)
        let middle = leaves.startIndex + split
        return m <= split
            ? subproof(m, leaves[..<middle], whole) + [mth(leaves[middle...])]
            : subproof(m - split, leaves[middle...], false) + [mth(leaves[..<middle])]
    }

    /// The proof's hashes as the range hasher computes them in one pass.
    static func proof(_ ranges: [Range<UInt64>], _ leaves: [HistoryHash]) -> [HistoryHash] {
        var hasher = HistoryRangeHasher(ranges: ranges)
        for leaf in leaves { hasher.add(leaf: leaf) }
        return hasher.hashes!
    }

    static func leaves(_ count: Int) -> [HistoryHash] {
        (0..<count).map { HistoryHash.leaf(payload: Array("record \($0)".utf8)) }
    }

    @Test func everyInclusionProofUpTo70RecordsIsTheReferencesAndChecks() throws {
        for size in 1...70 {
            let leaves = Self.leaves(size)
            let head = HistoryHead(seq: UInt64(size), hash: Self.mth(leaves[...]))
            var builder = HistoryTreeBuilder()
            for leaf in leaves { builder.append(leaf: leaf) }
            #expect(builder.head == head)
            for m in 0..<size {
                let path = Self.proof(HistoryTree.inclusionRanges(leaf: UInt64(m), size: UInt64(size)), leaves)
                #expect(path == Self.path(m, leaves[...]), "leaf \(m) of \(size)")
                let proof = InclusionProof(seq: UInt64(m + 1), head: head, path: path)
                try proof.verify(leaf: leaves[m])
                // Another record, or the proof under another seq, does not check.
                #expect(throws: EventLogError.self) {
                    try proof.verify(leaf: leaves[(m + 1) % size] == leaves[m] ? .empty : leaves[(m + 1) % size])
                }
                if size > 1 {
                    var moved = proof
                    moved.seq = UInt64((m + 1) % size + 1)
                    #expect(throws: EventLogError.self) { try moved.verify(leaf: leaves[m]) }
                }
            }
        }
    }

    /// Every element of a proof is checked, not only its ends: changing any
    /// one hash, dropping or adding one, or naming a record past the head
    /// fails. (The tree size is bound by the head's hash, which the
    /// verifier trusts, not by the proof.)
    @Test func aTamperedInclusionProofIsRefusedWhicheverElementChanged() throws {
        let leaves = Self.leaves(45)
        let head = HistoryHead(seq: 45, hash: Self.mth(leaves[...]))
        for m in [0, 1, 17, 31, 32, 44] {
            let proof = InclusionProof(seq: UInt64(m + 1), head: head, path: Self.path(m, leaves[...]))
            try proof.verify(leaf: leaves[m])
            for i in proof.path.indices {
                var tampered = proof
                tampered.path[i] = .leaf(payload: [UInt8(i)])
                #expect(throws: EventLogError.self) { try tampered.verify(leaf: leaves[m]) }
            }
            var shorter = proof
            shorter.path.removeLast()
            #expect(throws: EventLogError.self) { try shorter.verify(leaf: leaves[m]) }
            var longer = proof
            longer.path.append(.empty)
            #expect(throws: EventLogError.self) { try longer.verify(leaf: leaves[m]) }
            var pastTheHead = proof
            pastTheHead.seq = 46
            #expect(throws: EventLogError.self) { try pastTheHead.verify(leaf: leaves[m]) }
        }
    }

    @Test func everyConsistencyProofUpTo40RecordsIsTheReferencesAndChecks() throws {
        let all = Self.leaves(40)
        for new in 1...40 {
            let newHead = HistoryHead(seq: UInt64(new), hash: Self.mth(all[..<new]))
            for old in 1...new {
                let oldHead = HistoryHead(seq: UInt64(old), hash: Self.mth(all[..<old]))
                let path = Self.proof(HistoryTree.consistencyRanges(old: UInt64(old), new: UInt64(new)), Array(all[..<new]))
                #expect(path == Self.subproof(old, all[..<new], true), "\(old) → \(new)")
                let proof = ConsistencyProof(old: oldHead, new: newHead, path: path)
                try proof.verify()
                for i in path.indices {
                    var tampered = proof
                    tampered.path[i] = .leaf(payload: [UInt8(i), 1])
                    #expect(throws: EventLogError.self, "\(old) → \(new), element \(i)") { try tampered.verify() }
                }
                if old < new {
                    // A history that changed a record before `old` is not proven to extend it.
                    var altered = Array(all[..<new])
                    altered[old - 1] = .leaf(payload: Array("forged".utf8))
                    let forged = ConsistencyProof(
                        old: oldHead, new: HistoryHead(seq: UInt64(new), hash: Self.mth(altered[...])),
                        path: Self.subproof(old, altered[...], true))
                    #expect(throws: EventLogError.self) { try forged.verify() }
                    let backwards = ConsistencyProof(old: newHead, new: oldHead, path: path)
                    #expect(throws: EventLogError.self) { try backwards.verify() }
                }
            }
        }
        // From the empty history: no hashes; with any, or a wrong empty head, refused.
        try ConsistencyProof(old: HistoryHead(seq: 0, hash: .empty), new: HistoryHead(seq: 3, hash: Self.mth(all[..<3])), path: []).verify()
        #expect(throws: EventLogError.self) {
            try ConsistencyProof(old: HistoryHead(seq: 0, hash: all[0]), new: HistoryHead(seq: 3, hash: Self.mth(all[..<3])), path: [])
                .verify()
        }
    }

    /// The proof a holder of the old frontier and the new records builds
    /// (a synced device's) is the reference proof, for every pair of sizes
    /// up to 70, and checks; a head claimed for a history that changed a
    /// record the old head covers is refused with it.
    @Test func aProofBuiltFromTheOldFrontierAndTheNewRecordsIsTheReferences() throws {
        let all = Self.leaves(70)
        for new in 1...70 {
            for old in 0...new {
                var builder = HistoryTreeBuilder()
                for leaf in all[..<old] { builder.append(leaf: leaf) }
                let proof = ConsistencyProof.extending(builder, by: Array(all[old..<new]))
                #expect(proof.old == HistoryHead(seq: UInt64(old), hash: Self.mth(all[..<old])))
                #expect(proof.new == HistoryHead(seq: UInt64(new), hash: Self.mth(all[..<new])))
                #expect(proof.path == (old == 0 ? [] : Self.subproof(old, all[..<new], true)), "\(old) → \(new)")
                try proof.verify()
                if old > 0 && old < new {
                    var altered = Array(all[..<new])
                    altered[old / 2] = .leaf(payload: Array("rewritten".utf8))
                    let claimed = ConsistencyProof(
                        old: proof.old, new: HistoryHead(seq: UInt64(new), hash: Self.mth(altered[...])), path: proof.path)
                    #expect(throws: EventLogError.self, "\(old) → \(new)") { try claimed.verify() }
                }
            }
        }
    }

    @Test func aBuilderContinuedFromItsFrontierGivesTheSameHeads() throws {
        let leaves = Self.leaves(300)
        var whole = HistoryTreeBuilder()
        for (n, leaf) in leaves.enumerated() {
            whole.append(leaf: leaf)
            guard n % 37 == 0 else { continue }
            var continued = try #require(HistoryTreeBuilder(count: whole.count, frontier: whole.frontier))
            var reference = whole
            for next in leaves[(n + 1)...] {
                continued.append(leaf: next)
                reference.append(leaf: next)
            }
            #expect(continued.head == reference.head)
        }
        #expect(HistoryTreeBuilder(count: 3, frontier: [.empty]) == nil)
    }

    @Test func aHeadsTextAndJSONFormsReadBack() throws {
        let head = HistoryHead(seq: 1200, hash: HistoryHash.leaf(payload: [1, 2, 3]))
        #expect(HistoryHead(parsing: head.description) == head)
        #expect(head.description == "1200:" + head.hash.hex)
        #expect(HistoryHead(parsing: "1200:" + head.hash.hex.uppercased()) == head)
        for bad in [
            "", "1200", ":" + head.hash.hex, "x:" + head.hash.hex, "1200:" + head.hash.hex.dropLast(), "1200:" + head.hash.hex + "0",
            "-1:" + head.hash.hex
        ] {
            #expect(HistoryHead(parsing: bad) == nil, "\(bad)")
        }
        let json = try JSONEncoder().encode(head)
        #expect(try JSONDecoder().decode(HistoryHead.self, from: json) == head)
        #expect(String(decoding: json, as: UTF8.self).contains("\"\(head.hash.hex)\""))
    }
}

extension HistoryTreeTests {
    /// The CPU's SHA instructions (when this machine has them) and the
    /// portable Swift compression give the same state for any blocks.
    @Test func hardwareAndPortableCompressionAgree() {
        var random = SeededGenerator(seed: 0x5AA_256)
        for count in [1, 2, 3, 7, 16] {
            let bytes = (0..<64 * count).map { _ in UInt8.random(in: 0...255, using: &random) }
            var hardware = SHA256.initialState
            var portable = SHA256.initialState
            bytes.withUnsafeBytes { raw in
                SHA256.compress(&hardware, raw.baseAddress!, blocks: count)
                for block in 0..<count { SHA256.portableCompress(&portable, raw.baseAddress! + 64 * block) }
            }
            #expect(HistoryHash(state: hardware) == HistoryHash(state: portable), "\(count) blocks; hardware: \(SHA256.usesHardware)")
        }
    }
}
