import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

/// Payloads handed out as a storage holds them (`PayloadReadingStorage`):
/// decoded and hashed by the reader as the storage's own read would.
struct StoredPayloadsTests {
    func payloads(_ records: [EventRecord]) throws -> StoredPayloads {
        var payloads = StoredPayloads()
        for record in records { try record.encodedPayload().withUnsafeBytes { payloads.append($0) } }
        return payloads
    }

    func records(_ count: Int, from first: UInt64 = 1) -> [EventRecord] {
        (0..<count).map { i in
            EventRecord(
                seq: first + UInt64(i), timestamp: EventTimestamp(millisecondsSince1970: 1_000 + Int64(i)),
                event: .added(id: testID(i + 1), title: "label \(i)", isEnabled: i % 2 == 0, index: 0))
        }
    }

    @Test func payloadsDecodeToTheRecordsAndHashToTheirLeaves() throws {
        let written = records(300, from: 41)
        let payloads = try payloads(written)
        #expect(payloads.count == 300)
        #expect(try payloads.records(first: 41, source: ("list 'a'", "pg")) == written)
        #expect(try payloads.leafHashes() == written.map { .leaf(payload: try $0.encodedPayload()) })
        #expect(StoredPayloads().leafHashes().isEmpty)
    }

    @Test func aPayloadThatDoesNotDecodeOrHoldsAnotherSeqIsNamedBySeq() throws {
        let written = records(3, from: 7)
        var damaged = try payloads(Array(written.prefix(1)))
        damaged.append(UnsafeRawBufferPointer(start: nil, count: 0))
        let undecodable = #expect(throws: EventLogError.self) { try damaged.records(first: 7, source: ("list 'a'", "pg")) }
        #expect(undecodable?.code == .corruptRecord && undecodable?.lastGoodSeq == 7)
        #expect(
            undecodable?.message.contains("list 'a': the payload of seq 8 cannot be decoded") == true, "\(String(describing: undecodable))")
        let shifted = try payloads(written)
        let wrongSeq = #expect(throws: EventLogError.self) { try shifted.records(first: 6, source: ("list 'a'", "pg")) }
        #expect(wrongSeq?.message.contains("the row of seq 6 holds a payload of seq 7") == true, "\(String(describing: wrongSeq))")
        #expect(wrongSeq?.path == "pg")
    }
}
