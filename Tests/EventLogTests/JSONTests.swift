import Foundation
import LabelStoreTestSupport
import Testing

@testable import EventLog

@Suite("JSON form")
struct JSONTests {
    let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()

    @Test func everyKindRoundTripsThroughJSON() throws {
        let records = sampleEntries().enumerated().map { i, entry in
            entry.record(seq: UInt64(i + 1), now: EventTimestamp(millisecondsSince1970: 1_764_495_302_000 + Int64(i)))
        }
        for record in records {
            let data = try encoder.encode(record)
            #expect(try JSONDecoder().decode(EventRecord.self, from: data) == record)
            var entry = try JSONDecoder().decode(LogEntry.self, from: data)
            #expect(entry.timestamp == record.timestamp)
            entry.timestamp = nil
            #expect(entry.record(seq: record.seq, now: record.timestamp) == record)
        }
    }

    @Test func fieldNamesAreTheDocumentedOnes() throws {
        let id = fixedID(1)
        let t = EventTimestamp(millisecondsSince1970: 1_764_495_302_125)
        func json(_ event: LabelEvent, actor: String? = nil, note: String? = nil) throws -> String {
            String(decoding: try encoder.encode(EventRecord(seq: 7, timestamp: t, actor: actor, note: note, event: event)), as: UTF8.self)
        }
        let prefix = #"{"#
        let common = #""seq":7,"time":"2025-11-30T09:35:02.125Z""#
        #expect(
            try json(.added(id: id, title: "Amber", isEnabled: true, index: 0), actor: "ana", note: "n")
                == prefix + #""actor":"ana","id":"\#(id)","index":0,"isEnabled":true,"kind":"added","note":"n",\#(common),"title":"Amber"}"#
        )
        #expect(
            try json(.renamed(id: id, oldTitle: "A", newTitle: "B"))
                == prefix + #""id":"\#(id)","kind":"renamed","oldTitle":"A",\#(common),"title":"B"}"#)
        #expect(
            try json(.toggled(id: id, isEnabled: false))
                == prefix + #""id":"\#(id)","isEnabled":false,"kind":"toggled",\#(common)}"#)
        #expect(
            try json(.moved(id: id, from: 2, to: 0))
                == prefix + #""from":2,"id":"\#(id)","kind":"moved",\#(common),"to":0}"#)
        #expect(
            try json(.reordered(order: [id]))
                == prefix + #""kind":"reordered","order":["\#(id)"],\#(common)}"#)
        #expect(
            try json(.rejected(id: id, command: "rename", reason: "Edit skipped: label was removed."))
                == prefix + #""command":"rename","id":"\#(id)","kind":"rejected","reason":"Edit skipped: label was removed.",\#(common)}"#)
    }

    /// EventTimestamp promises an unchanged round trip: years before 0000 and
    /// after 9999 used to be written in full and refused by the parser (four digits).
    @Test func everyStorableTimestampRoundTripsThroughItsJSONForm() throws {
        for (ms, text) in TimestampSamples.extremes {
            let time = EventTimestamp(millisecondsSince1970: ms)
            #expect(time.iso8601 == text)
            #expect(EventTimestamp(iso8601: text) == time, "\(text)")
            let record = EventRecord(seq: 1, timestamp: time, event: .toggled(id: fixedID(1), isEnabled: true))
            let data = try encoder.encode(record)
            #expect(String(decoding: data, as: UTF8.self).contains(#""time":"\#(text)""#))
            #expect(try JSONDecoder().decode(EventRecord.self, from: data) == record, "\(text)")
            #expect(try JSONDecoder().decode(LogEntry.self, from: data).timestamp == time, "\(text)")
            #expect(
                try JSONDecoder().decode(LogEntry.self, from: try encoder.encode(LogEntry(record.event, timestamp: time))).timestamp == time
            )
        }
    }

    @Test func expandedYearsParseAndTimesBeyondTheStorableRangeAreRefused() throws {
        #expect(EventTimestamp(iso8601: "+2026-11-30T09:35:02.125Z") == EventTimestamp(iso8601: "2026-11-30T09:35:02.125Z"))
        #expect(
            EventTimestamp(iso8601: "+010000-01-01")?.millisecondsSince1970 == 253_402_300_800_000, "six digits, as ECMAScript writes them")
        #expect(EventTimestamp(iso8601: "-000001-01-01")?.millisecondsSince1970 == -62_198_755_200_000)
        // The last millisecond an Int64 holds, reached through an offset.
        #expect(EventTimestamp(iso8601: "+292278994-08-17T08:12:55.807+01:00")?.millisecondsSince1970 == .max)
        for bad in [
            "10000-01-01", "+292278994-08-17T07:12:55.808Z", "-292275055-05-16T16:47:04.191Z",
            "+292278994-08-17T07:12:55.807-00:01", "+99999999999999999999-01-01", "+999-01-01", "+-2026-01-01", "--2026-01-01"
        ] {
            #expect(EventTimestamp(iso8601: bad) == nil, "\(bad)")
        }
        let line = #"{"kind":"toggled","id":"00000000-0000-0000-0000-000000000000","isEnabled":true,"time":"+292278995-01-01T00:00:00Z"}"#
        do {
            _ = try JSONDecoder().decode(LogEntry.self, from: Data(line.utf8))
            Issue.record("decoded a time beyond the range of a timestamp")
        } catch {
            #expect("\(error)".contains("+292278995-01-01T00:00:00Z") && "\(error)".contains("range"), "\(error)")
        }
    }

    @Test func badJSONNamesTheProblem() {
        let cases = [
            (#"{"kind":"exploded","id":"00000000-0000-0000-0000-000000000000"}"#, "unknown kind 'exploded'"),
            (#"{"kind":"toggled","id":"nope","isEnabled":true}"#, "not a UUID"),
            (#"{"kind":"toggled","id":"00000000-0000-0000-0000-000000000000","isEnabled":true,"time":"noon"}"#, "not an ISO 8601 time")
        ]
        for (text, expected) in cases {
            do {
                _ = try JSONDecoder().decode(LogEntry.self, from: Data(text.utf8))
                Issue.record("decoded \(text)")
            } catch {
                #expect("\(error)".contains(expected), "\(error)")
            }
        }
    }
}
