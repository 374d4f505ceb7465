import LabelProjection
import Testing

// The ```swift blocks of LabelProjection.docc/HandlingErrors.md, compiled.

private func toggleHandlingEachError(_ store: LabelStore, id: LabelID) {
    // snippet: errors-write
    do {
        try store.toggle(id)
    } catch {
        switch error.code {
        case .labelRemoved(let removedAtSeq):
            print("removed at seq \(removedAtSeq): drop the row")  // error.message: "Edit skipped: label was removed. …"
        case .labelNeverAdded:
            print("no such label: \(id)")
        case .staleVersion(_, let current):
            print("changed at seq \(current): reload the row")
        case .closed:
            print("the store was closed")
        case .storage(let logError) where logError.code == .poisoned || logError.code == .ioError:
            print("the disk failed: \(logError.message); reopen the store")
        default:
            print(error.message)
        }
    }
    // end snippet
}

/// One user edit: the title typed, and the version the row showed.
private struct Edit {
    let id: LabelID
    let title: String
    let version: UInt64
}

private func applyHandlingEachKind(_ store: LabelStore, edits: [Edit]) async {
    // snippet: errors-kind
    do {
        for edit in edits {  // what the user typed, with the version each row showed
            try await store.rename(edit.id, to: edit.title, options: WriteOptions(expectation: .label(edit.id, version: edit.version)))
            try Task.checkCancellation()  // stop between edits once the task is cancelled
        }
    } catch let error as StoreError where error.kind == .labelRemoved {
        print("removed at seq \(error.seq ?? 0): drop the row")
    } catch let error as StoreError where error.kind == .labelNeverAdded {
        print("no such label: \(error.message)")
    } catch let error as StoreError where error.kind == .staleVersion {
        print("changed at seq \(error.seq ?? 0): show the new value and ask again")
    } catch let error as StoreError where error.kind == .closed {
        print("the store is closed")
    } catch let error as StoreError where error.kind == .cancelled {
        print("cancelled before it was committed: nothing of it was written")
    } catch let error as StoreError where error.kind == .ioError {
        print("the disk failed: \(error.message); close the store and open it again")
    } catch {
        print("stopped:", error)  // CancellationError, or another kind
    }
    // end snippet
}

private func openHandlingEachKind(path: String) async {
    // snippet: errors-open
    do {
        let store = try await LabelStore.open(path: path)
        await store.close()
    } catch  where error.kind == .logNotFound {
        print("no log yet: open with createIfMissing")
    } catch  where error.kind == .logInUse {
        print("another writer has \(path) open (this process or another)")
    } catch  where error.kind == .logDamaged {
        print("damaged after seq \(error.seq ?? 0): run labelreplay verify / repair")
    } catch {
        print(error.kind, error.message)
    }
    // end snippet
}

@Suite struct ErrorSnippetTests {
    @Test func eachWriteErrorIsMatched() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await LabelStore.open(path: directory + "/labels.labellog", options: .init(createIfMissing: true))
            let ring = try await store.add("Ring")
            try await store.remove(ring)
            let stranger = LabelID()
            let printed = await Printed.capture {
                toggleHandlingEachError(store, id: ring)
                toggleHandlingEachError(store, id: stranger)
                store.close()
                toggleHandlingEachError(store, id: ring)
            }
            #expect(printed == ["removed at seq 2: drop the row", "no such label: \(stranger)", "the store was closed"])
        }
    }

    @Test func eachKindIsMatched() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await LabelStore.open(path: directory + "/labels.labellog", options: .init(createIfMissing: true))
            let ring = try await store.add("Ring")  // seq 1
            let tile = try await store.add("Tile")  // seq 2
            try await store.remove(ring)  // seq 3
            try await store.toggle(tile)  // seq 4: tile's version is 4
            let printed = await Printed.capture {
                await applyHandlingEachKind(
                    store, edits: [Edit(id: tile, title: "Tile Two", version: 4), Edit(id: ring, title: "R", version: 1)])
                await applyHandlingEachKind(store, edits: [Edit(id: LabelID(), title: "New", version: 0)])
                await applyHandlingEachKind(store, edits: [Edit(id: tile, title: "Tile Three", version: 4)])
                // A task cancelled before its write is committed: the write is withdrawn.
                let cancelled = Task {
                    withUnsafeCurrentTask { $0?.cancel() }
                    await applyHandlingEachKind(store, edits: [Edit(id: tile, title: "Tile Four", version: 5)])
                }
                await cancelled.value
                await store.close()
                await applyHandlingEachKind(store, edits: [Edit(id: tile, title: "Tile Five", version: 5)])
            }
            #expect(printed.count == 5)
            #expect(printed.first == "removed at seq 3: drop the row")
            #expect(printed.dropFirst().first?.hasPrefix("no such label: No label has id ") == true)
            #expect(
                Array(printed.dropFirst(2)) == [
                    "changed at seq 5: show the new value and ask again",
                    "cancelled before it was committed: nothing of it was written", "the store is closed"
                ])
            #expect(store.label(tile)?.title == "Tile Two")
            #expect(store.lastSeq == 5)
        }
    }

    @Test func eachOpenKindIsMatched() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/labels.labellog"
            let printed = await Printed.capture {
                await openHandlingEachKind(path: path)  // no file
                let writer = try? await LabelStore.open(path: path, options: .init(createIfMissing: true))
                await openHandlingEachKind(path: path)  // the log is in use
                await writer?.close()
                await openHandlingEachKind(path: path)  // opens and closes
            }
            #expect(printed == ["no log yet: open with createIfMissing", "another writer has \(path) open (this process or another)"])
        }
    }
}
