import EventLog
import Foundation
import LabelProjection

/// `logtorture store-writers PATH WRITERS`: opens a `LabelStore` on PATH
/// (created if missing, `syncEachAppend`), prints "opened LASTSEQ", then lets
/// WRITERS writers write at once forever — the even ones on threads with the
/// synchronous API, the odd ones as tasks with the async API — so the store
/// commits their writes in groups. Writer k adds labels titled "wK.N" and
/// renames every third to "wK.N" (N counts its commands); after each
/// acknowledged write it prints "ack SEQ TITLE".
func storeWritersForever(path: String, writers: Int) -> Never {
    let store: LabelStore
    do {
        store = try LabelStore.open(path: path, options: .init(createIfMissing: true))
    } catch {
        fail("\(error)")
    }
    say("opened \(store.lastSeq)")
    for k in 0..<writers {
        if k.isMultiple(of: 2) {
            Thread {
                var writer = StoreWriter(number: k)
                while true {
                    let (command, title) = writer.next()
                    do { writer.acknowledged(try store.execute(command, options: .init(actor: "w\(k)")), title: title) } catch {
                        fail("writer \(k): \(error)")
                    }
                }
            }.start()
        } else {
            Task.detached {
                var writer = StoreWriter(number: k)
                while true {
                    let (command, title) = writer.next()
                    do { writer.acknowledged(try await store.execute(command, options: .init(actor: "w\(k)")), title: title) } catch {
                        fail("writer \(k): \(error)")
                    }
                }
            }
        }
    }
    while true { sleep(60) }
}

/// `logtorture store-retain PATH`: opens a `LabelStore` on PATH (created if
/// missing, `syncEachAppend`) that snapshots every 200 records and keeps the
/// last 100 (`Options.retention`, archiving the rest beside the log, at least
/// 100 at a time), so it cuts its open log again and again; prints "opened
/// LASTSEQ", then adds labels titled "rN" forever from one thread, printing
/// "ack SEQ TITLE" after each acknowledged write.
func storeWithRetentionForever(path: String) -> Never {
    let store: LabelStore
    do {
        store = try LabelStore.open(
            path: path,
            options: .init(
                createIfMissing: true, snapshots: SnapshotPolicy(everyRecords: 200, everyBytes: 0, onClose: false),
                retention: LabelStore.Retention(keep: .lastRecords(100), minimumCut: 100)))
    } catch {
        fail("\(error)")
    }
    say("opened \(store.lastSeq)")
    var n = 0
    while true {
        n += 1
        do {
            let records = try store.execute(.add(title: "r\(n)", isEnabled: true, id: nil, at: nil))
            say("ack \(records[0].seq) r\(n)")
        } catch {
            fail("\(error)")
        }
    }
}

/// One writer's commands: adds, and a rename of its last label every third command.
struct StoreWriter {
    let number: Int
    var count = 0
    var last: LabelID?

    init(number: Int) { self.number = number }

    mutating func next() -> (LabelCommand, String) {
        count += 1
        let title = "w\(number).\(count)"
        if count % 3 == 0, let last { return (.rename(id: last, title: title), title) }
        return (.add(title: title, isEnabled: true, id: nil, at: nil), title)
    }

    mutating func acknowledged(_ records: [EventRecord], title: String) {
        guard let record = records.first else { fail("writer \(number): '\(title)' appended nothing") }
        if case .added(let id, _, _, _) = record.event { last = id }
        say("ack \(record.seq) \(title)")
    }
}
