import EventLog
import Foundation
import LabelProjection
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
