import EventLog
import Foundation
import LabelProjection
import LabelStoreTestSupport
import Testing

/// The async writes: many tasks writing at once are committed in groups, each
/// acknowledged once applied, in seq order; a write cancelled before it was
/// committed appends nothing.
@Suite struct AsyncWriteTests {
    @Test func manyTasksWritingAtOnceAreAllAppliedOnceInSeqOrder() async throws {
        let store = try LabelStore(storage: InMemoryEventLog())
        let ids = try await withThrowingTaskGroup(of: (LabelID, UInt64).self) { group in
            for i in 0..<200 {
                group.addTask {
                    let records = try await store.execute(.add(title: "t\(i)", isEnabled: true, id: nil, at: nil))
                    // Acknowledged only once applied: the store shows the record.
                    #expect(store.lastSeq >= records[0].seq)
                    guard case .added(let id, _, _, _) = records[0].event else { throw CancellationError() }
                    return (id, records[0].seq)
                }
            }
            var all: [(LabelID, UInt64)] = []
            for try await pair in group { all.append(pair) }
            return all
        }
        #expect(Set(ids.map(\.1)) == Set(1...200), "every write got its own seq")
        let bySeq = Dictionary(uniqueKeysWithValues: ids.map { ($0.1, $0.0) })
        #expect(store.labels.map(\.id) == (1...200).map { bySeq[UInt64($0)]! }, "appended at the end in seq order")
    }

    @Test func concurrentRefusalsRefuseOnlyThemselves() async throws {
        let store = try LabelStore(storage: InMemoryEventLog())
        let a = try await store.add("A")
        try await store.remove(a)
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<50 {
                group.addTask {
                    do {
                        if i.isMultiple(of: 2) { try await store.rename(a, to: "x") } else { try await store.add("ok \(i)") }
                        return true
                    } catch let error as StoreError where error.kind == .labelRemoved {
                        return false
                    } catch {
                        Issue.record("unexpected \(error)")
                        return false
                    }
                }
            }
            var results: [Bool] = []
            for await ok in group { results.append(ok) }
            return results
        }
        #expect(outcomes.filter { $0 }.count == 25)
        #expect(store.count == 25)
        #expect(store.lastSeq == 27)
    }

    @Test func aWriteCancelledBeforeItIsCommittedAppendsNothing() async throws {
        let store = try LabelStore(storage: InMemoryEventLog())
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await store.add("never")
        }
        do {
            _ = try await task.value
            Issue.record("a write cancelled before it was queued was committed")
        } catch let error as StoreError {
            #expect(error.kind == .cancelled)
        }
        #expect(store.lastSeq == 0)
    }

    /// Under load (slow syncs, so groups form), writes cancelled at random
    /// moments either complete (and are in the log once) or are refused as
    /// cancelled (and are nowhere); a write cancelled before it reaches the
    /// store is always refused. A reader runs throughout.
    @Test func writesCancelledUnderLoadAreEitherCommittedOnceOrAbsent() async throws {
        let storage = PowerCutStorage(cutAt: .max, landsOnCut: false, syncTime: .microseconds(200))
        let store = try LabelStore(storage: storage)
        let gate = Locked(false)
        let readerDone = Locked(false)
        let reader = Task.detached {
            var reads = 0
            while !readerDone.withLock({ $0 }) {
                let shown = store.lastSeq
                #expect(shown <= storage.durableCount, "the store showed seq \(shown) before it was durable")
                reads += 1
                await Task.yield()
            }
            return reads
        }
        enum Result: Sendable {
            case committed(UInt64)
            case cancelled
        }
        var rng = SeededGenerator(seed: 77)
        var tasks: [(title: String, mustBeCancelled: Bool, task: Task<Result, any Error>)] = []
        for i in 0..<300 {
            let title = "t\(i)"
            let waitsForGate = i % 3 == 0
            let task = Task<Result, any Error>.detached {
                if waitsForGate { while !gate.withLock({ $0 }) { await Task.yield() } }
                do {
                    let records = try await store.execute(.add(title: title, isEnabled: true, id: nil, at: nil))
                    return .committed(records[0].seq)
                } catch let error as StoreError where error.kind == .cancelled {
                    return .cancelled
                }
            }
            if waitsForGate { task.cancel() }  // cancelled before it reaches the store
            tasks.append((title, waitsForGate, task))
            if i % 3 == 1 {
                let victim = task
                let delay = Int.random(in: 0...400, using: &rng)
                Task.detached {
                    try? await Task.sleep(for: .microseconds(delay))
                    victim.cancel()
                }
            }
        }
        gate.withLock { $0 = true }
        var committed: [UInt64: String] = [:]
        var cancelled = 0
        for (title, mustBeCancelled, task) in tasks {
            switch try await task.value {
            case .committed(let seq):
                #expect(!mustBeCancelled, "\(title) was cancelled before it reached the store, yet committed")
                #expect(committed[seq] == nil, "seq \(seq) acknowledged twice")
                committed[seq] = title
            case .cancelled: cancelled += 1
            }
        }
        readerDone.withLock { $0 = true }
        #expect(await reader.value > 0)
        #expect(committed.count + cancelled == tasks.count)
        #expect(cancelled >= tasks.count / 3, "every write cancelled before it reached the store is refused")
        // The log holds each committed write once, at its seq, and nothing of a cancelled one.
        let stored = storage.durableRecords
        #expect(stored.count == committed.count)
        for record in stored {
            guard case .added(_, let title, _, _) = record.event else {
                Issue.record("seq \(record.seq) is not an add")
                continue
            }
            #expect(committed[record.seq] == title, "seq \(record.seq) holds '\(title)'")
        }
        #expect(Set(store.labels.map(\.title)) == Set(committed.values))
        #expect(storage.groupSizes.contains { $0 > 1 }, "no group of several writes formed")
    }

    @Test func errorKindsMatchInCatchClauses() throws {
        let store = try LabelStore(storage: InMemoryEventLog())
        let a = try store.add("A")
        try store.remove(a)
        var matched: [StoreError.Kind] = []
        do { try store.rename(a, to: "B") } catch  where error.kind == .labelRemoved { matched.append(.labelRemoved) } catch {}
        do { try store.rename(LabelID(), to: "B") } catch  where error.kind == .labelNeverAdded { matched.append(.labelNeverAdded) } catch {
        }
        store.close()
        do { try store.add("C") } catch  where error.kind == .closed { matched.append(.closed) } catch {}
        #expect(matched == [.labelRemoved, .labelNeverAdded, .closed])
    }
}
