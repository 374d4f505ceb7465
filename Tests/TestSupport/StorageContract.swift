import EventLog
import Foundation

/// The contract every `EventStorage` of this package keeps, checked the same
/// way against each: the file log, the in-memory log and the server log.
/// Each check throws a ``ContractViolation`` naming what broke.
///
/// `make` gives a fresh, empty storage; `another`, for storages several
/// writers can share, a second handle on the same storage (another store,
/// process or host would have its own).
package struct StorageContract {
    package let name: String
    package let make: () throws -> any EventStorage
    package let another: ((any EventStorage) throws -> any EventStorage)?

    package init(
        name: String, make: @escaping () throws -> any EventStorage,
        another: ((any EventStorage) throws -> any EventStorage)? = nil
    ) {
        self.name = name
        self.make = make
        self.another = another
    }

    /// The names of the checks, for parameterized tests.
    package static let checks = [
        "empty", "append and read", "stale expectation", "all or nothing", "read windows", "envelope", "wait", "shared writers"
    ]

    /// Runs the check `name`.
    package func check(_ name: String) throws {
        switch name {
        case "empty": try empty()
        case "append and read": try appendAndRead()
        case "stale expectation": try staleExpectation()
        case "all or nothing": try allOrNothing()
        case "read windows": try readWindows()
        case "envelope": try envelope()
        case "wait": try wait()
        case "shared writers": try sharedWriters()
        default: throw ContractViolation("\(self.name): no check named \(name)")
        }
    }

    func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw ContractViolation("\(name): \(message())") }
    }

    func entry(_ n: Int, title: String? = nil, timestamp: EventTimestamp? = nil) -> LogEntry {
        LogEntry(
            .added(id: testID(n), title: title ?? "label \(n)", isEnabled: n % 2 == 0, index: 0), timestamp: timestamp, actor: "contract")
    }

    func empty() throws {
        let storage = try make()
        try require(storage.lastSeq == 0, "a fresh storage's lastSeq is \(storage.lastSeq)")
        try require(try storage.refreshLastSeq() == 0, "a fresh storage's refreshed lastSeq is not 0")
        try require(try storage.read(from: 1, maxCount: 10).isEmpty, "a fresh storage reads records")
    }

    func appendAndRead() throws {
        let storage = try make()
        let first = try storage.put([entry(1), entry(2), entry(3)], expectedLastSeq: 0)
        try require(first.map(\.seq) == [1, 2, 3], "the first append got seqs \(first.map(\.seq))")
        let second = try storage.put([entry(4)], expectedLastSeq: 3)
        try require(second.map(\.seq) == [4], "the second append got seqs \(second.map(\.seq))")
        let third = try storage.put([entry(5)], expectedLastSeq: nil)
        try require(third.map(\.seq) == [5], "an append without expectation got seqs \(third.map(\.seq))")
        try require(storage.lastSeq == 5, "lastSeq is \(storage.lastSeq) after 5 records")
        let read = try storage.read(from: 1, maxCount: 100)
        try require(read == first + second + third, "the records read differ from those appended")
        var visited: [UInt64] = []
        try storage.forEachRecord(from: 2, through: 4, batch: 2) { record in
            visited.append(record.seq)
            return true
        }
        try require(visited == [2, 3, 4], "forEachRecord(2…4) visited \(visited)")
    }

    func staleExpectation() throws {
        let storage = try make()
        try storage.put([entry(1), entry(2)], expectedLastSeq: 0)
        for stale: UInt64 in [0, 1, 3] {
            do {
                _ = try storage.put([entry(9)], expectedLastSeq: stale)
                throw ContractViolation("\(name): an append expecting seq \(stale) at seq 2 was accepted")
            } catch let error as EventLogError {
                try require(error.code == .seqConflict, "expecting seq \(stale) failed with \(error.code), not seqConflict")
            }
        }
        try require(try storage.read(from: 1, maxCount: 10).count == 2, "a refused append left records")
        try require(try storage.put([entry(3)], expectedLastSeq: 2).map(\.seq) == [3], "the right expectation was refused")
    }

    func allOrNothing() throws {
        let storage = try make()
        try storage.put([entry(1)])
        let tooLong = String(repeating: "é", count: LogLimits.maxTitleBytes)
        do {
            _ = try storage.put([entry(2), entry(3, title: tooLong), entry(4)])
            throw ContractViolation("\(name): an append with a title over the limit was accepted")
        } catch let error as EventLogError {
            try require(error.code == .invalidEvent, "an over-long title failed with \(error.code), not invalidEvent")
        }
        try require(try storage.refreshLastSeq() == 1, "a refused append moved the last seq")
        try require(try storage.read(from: 1, maxCount: 10).map(\.seq) == [1], "a refused append left part of itself")
        try require(try storage.put([entry(5)]).map(\.seq) == [2], "the next append after a refused one is not seq 2")
    }

    func readWindows() throws {
        let storage = try make()
        try storage.put((1...10).map { entry($0) })
        try require(try storage.read(from: 4, maxCount: 3).map(\.seq) == [4, 5, 6], "read(4, 3) is wrong")
        try require(try storage.read(from: 0, maxCount: 2).map(\.seq) == [1, 2], "read(0, 2) does not start at seq 1")
        try require(try storage.read(from: 9, maxCount: 100).map(\.seq) == [9, 10], "read(9, 100) is wrong")
        try require(try storage.read(from: 11, maxCount: 5).isEmpty, "a read past the end returned records")
        try require(try storage.read(from: 3, maxCount: 0).isEmpty, "a read of 0 records returned records")
    }

    func envelope() throws {
        let storage = try make()
        let stamped = EventTimestamp(millisecondsSince1970: 1_700_000_000_123)
        let before = EventTimestamp.now().millisecondsSince1970
        let records = try storage.put([
            entry(1, timestamp: stamped),
            LogEntry(.renamed(id: testID(1), oldTitle: "label 1", newTitle: "ünïcødé ✓"), actor: nil, note: "a note"),
            LogEntry(.removed(id: testID(1), index: 0, title: "ünïcødé ✓", isEnabled: false), actor: String(repeating: "a", count: 1024))
        ])
        let read = try storage.read(from: 1, maxCount: 10)
        try require(read == records, "the records read differ from those appended")
        try require(read[0].timestamp == stamped, "a given timestamp was not kept")
        try require(read[1].timestamp.millisecondsSince1970 >= before - 1000, "a missing timestamp was not stamped now")
        try require(read[1].actor == nil && read[1].note == "a note", "actor/note of seq 2 changed")
        try require(read[2].actor?.utf8.count == 1024, "a 1,024-byte actor was not kept")
    }

    func wait() throws {
        let storage = try make()
        let quiet = try storage.waitForAppends(after: 0, timeout: .milliseconds(30))
        try require(!quiet, "waitForAppends reported records in an empty storage")
        try storage.put([entry(1)])
        let woken = try storage.waitForAppends(after: 0, timeout: .seconds(5))
        try require(woken, "waitForAppends did not see an append")
    }

    /// Two handles: each sees the other's appends, conflicts are refused, a waiter wakes.
    func sharedWriters() throws {
        guard let another else { return }
        let one = try make()
        let two = try another(one)
        try one.put([entry(1)], expectedLastSeq: 0)
        do {
            _ = try two.put([entry(2)], expectedLastSeq: 0)
            throw ContractViolation("\(name): the second writer's stale append was accepted")
        } catch let error as EventLogError {
            try require(error.code == .seqConflict, "a stale second writer failed with \(error.code)")
        }
        try require(try two.refreshLastSeq() == 1, "the second writer does not see the first's append")
        try two.put([entry(2)], expectedLastSeq: 1)
        try require(try one.read(from: 1, maxCount: 10).map(\.seq) == [1, 2], "the first writer does not read the second's append")
        // A waiter on one handle wakes when the other appends.
        let appended = DispatchSemaphore(value: 0)
        let thread = Thread {
            Thread.sleep(forTimeInterval: 0.05)
            _ = try? one.put([LogEntry(.toggled(id: testID(1), isEnabled: true))])
            appended.signal()
        }
        thread.start()
        let woke = try two.waitForAppends(after: 2, timeout: .seconds(10))
        appended.wait()
        try require(woke, "a waiter did not wake when another writer appended")
        try require(try two.read(from: 3, maxCount: 10).map(\.seq) == [3], "the waiter does not read the new record")
    }
}

/// A broken promise of the storage contract.
package struct ContractViolation: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

extension EventStorage {
    /// `append`, with no expectation unless given, its result discardable.
    @discardableResult
    fileprivate func put(_ entries: [LogEntry], expectedLastSeq: UInt64? = nil) throws -> [EventRecord] {
        try append(entries, expectedLastSeq: expectedLastSeq)
    }
}
