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

private func openHandlingEachError(path: String) throws {
    // snippet: errors-open
    do {
        let store = try LabelStore.open(path: path)
        store.close()
    } catch {
        guard case .storage(let logError) = error.code else { throw error }
        switch logError.code {
        case .fileNotFound:
            print("no log yet: open with createIfMissing")
        case .logInUse:
            print("another writer has \(path) open (this process or another)")
        case .corruptRecord, .seqGap:
            print("damage at byte \(logError.offset ?? 0), after seq \(logError.lastGoodSeq ?? 0): run labelreplay verify / repair")
        default:
            print(logError.message)
        }
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

    @Test func eachOpenErrorIsMatched() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/labels.labellog"
            let printed = try await Printed.capture {
                try openHandlingEachError(path: path)  // no file
                let writer = try LabelStore.open(path: path, options: .init(createIfMissing: true))
                try openHandlingEachError(path: path)  // the log is in use
                writer.close()
                try openHandlingEachError(path: path)  // opens and closes
            }
            #expect(printed == ["no log yet: open with createIfMissing", "another writer has \(path) open (this process or another)"])
        }
    }
}
