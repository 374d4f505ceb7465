import EventLog
import Foundation

/// A deterministic id from a small number, so failures print readable ids:
/// `testID(1)` is `00000000-0000-4000-8000-000000000001`.
package func testID(_ n: Int) -> LabelID {
    LabelID("00000000-0000-4000-8000-\(String(format: "%012d", n))")!
}

/// A clock that starts at 2026-01-01T00:00:00Z and advances one second per
/// reading, for reproducible timestamps.
package final class StepClock: Sendable {
    /// Its first reading: 2026-01-01T00:00:00Z, in milliseconds since 1970.
    package static let start: Int64 = 1_767_225_600_000
    private let next = Locked<Int64>(StepClock.start)

    package init() {}

    package var now: @Sendable () -> EventTimestamp {
        { [self] in
            EventTimestamp(
                millisecondsSince1970: next.withLock { v in
                    defer { v += 1000 }
                    return v
                })
        }
    }
}

/// Timestamps at the edges of what a log stores, each with its JSON text.
package enum TimestampSamples {
    /// Every extreme a log can store (milliseconds since 1970, and the text
    /// `EventTimestamp.iso8601` gives): the first and last storable times,
    /// years beyond 9999 and before 0000 (written in full), and their
    /// neighbours inside the four-digit range.
    package static let extremes: [(Int64, String)] = [
        (.max, "+292278994-08-17T07:12:55.807Z"),
        (.min, "-292275055-05-16T16:47:04.192Z"),
        (253_402_300_800_000, "+10000-01-01T00:00:00.000Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
        (-62_167_219_200_000, "0000-01-01T00:00:00.000Z"),
        (-62_167_219_200_001, "-0001-12-31T23:59:59.999Z"),
        (-62_198_755_200_000, "-0001-01-01T00:00:00.000Z"),
        (0, "1970-01-01T00:00:00.000Z")
    ]
}
