#if Postgres
import EventLog
import Foundation
import LabelProjection
import LabelStorePostgres
import LabelStoreTestSupport
import Synchronization

/// `logtorture server-stores CONNINFO LIST STORES COMMANDS SEED`: STORES
/// stores in this process, each on its own connection to the list, following
/// it, each run COMMANDS conflicting commands (rename, toggle, move, remove,
/// re-add) on the labels testID(9000…9005) from a thread of its own. Prints
/// "done" when its commands are done, then reads "check LASTSEQ" on stdin (the
/// parent sends it once every process is done) and checks, for each store:
/// its list equals the fold of the stored history through LASTSEQ; its
/// `everything` subscriber heard every seq after the store opened, once, in
/// order; its `title(testID(9000))` subscriber heard exactly the seqs that
/// changed that title. Prints "ok STORES" or "fail REASON".
func serverStores(conninfo: String, list: String, stores count: Int, commands: Int, seed: UInt64) -> Never {
    let ids = (0..<6).map { testID(9000 + $0) }
    var hosts: [(LabelStore, PostgresEventLog, Heard, Heard, UInt64)] = []
    var subscriptions: [Subscription] = []  // kept: a released subscription ends
    do {
        for _ in 0..<count {
            let log = try PostgresEventLog(
                location: PostgresLocation(connection: conninfo, list: list), options: .init(pollInterval: .milliseconds(100)))
            let store = try LabelStore(storage: log)
            let everything = Heard()
            let titles = Heard()
            subscriptions.append(store.subscribe(to: .everything) { n in everything.seqs.withLock { $0.append(n.seq) } })
            subscriptions.append(store.subscribe(to: .title(ids[0])) { n in titles.seqs.withLock { $0.append(n.seq) } })
            // Where the subscribers start hearing: read before following, which may deliver at once the
            // records the other processes (already writing) appended since the store opened.
            let opened = store.lastSeq
            store.startFollowing(wait: .milliseconds(200))
            hosts.append((store, log, everything, titles, opened))
        }
    } catch {
        fail("open: \(error)")
    }
    let finished = DispatchGroup()
    for (h, host) in hosts.enumerated() {
        finished.enter()
        Thread {
            var gen = SeededGenerator(seed: seed &* 131 &+ UInt64(h))
            for step in 0..<commands {
                let id = ids[Int(gen.next() % UInt64(ids.count))]
                do {
                    switch gen.next() % 5 {
                    case 0: try host.0.rename(id, to: "p\(seed) h\(h) s\(step)")
                    case 1: try host.0.toggle(id)
                    case 2: try host.0.move(id, to: Int(gen.next() % 4))
                    case 3: try host.0.remove(id)
                    default: try host.0.add("re-added", id: id)
                    }
                } catch let error as StoreError where error.isRejection {
                    // Refused against the state it saw after catching up: the expected outcome of a race.
                } catch {
                    fail("store \(h) step \(step): \(error)")
                }
            }
            finished.leave()
        }.start()
    }
    finished.wait()
    say("done")
    guard let line = readLine(), line.hasPrefix("check "), let last = UInt64(line.dropFirst(6)) else { fail("expected 'check LASTSEQ'") }
    do {
        let history = try hosts[0].1.read(from: 1, maxCount: Int(last) + 1)
        guard history.count == Int(last) else { fail("the list holds \(history.count) records, the parent said \(last)") }
        var fold = LabelList()
        var changes: [LabelChange] = []
        for record in history { changes.append(try fold.apply(record)) }
        for (h, host) in hosts.enumerated() {
            let deadline = ContinuousClock.now.advanced(by: .seconds(30))
            while host.2.seqs.withLock({ $0.last ?? host.4 }) < last, ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.02)
            }
            try host.0.refresh()
            let heard = host.2.seqs.withLock { $0 }
            if heard != Array(stride(from: host.4 + 1, through: last, by: 1)) {
                fail("store \(h) heard \(heard.count) seqs, not \(host.4 + 1)…\(last) once each in order")
            }
            let titleSeqs = changes.filter { $0.record.seq > host.4 && $0.labelID == ids[0] && $0.before?.title != $0.after?.title }.map(
                \.record.seq)
            if host.3.seqs.withLock({ $0 }) != titleSeqs {
                fail("store \(h)'s title subscriber heard \(host.3.seqs.withLock { $0 }), not \(titleSeqs)")
            }
            if host.0.snapshot.labels != fold.labels { fail("store \(h)'s list differs from the fold of the stored history") }
        }
    } catch {
        fail("check: \(error)")
    }
    say("ok \(count)")
    withExtendedLifetime(subscriptions) {}
    exit(0)
}

/// What one store's subscriber heard.
final class Heard: Sendable {
    let seqs = Mutex<[UInt64]>([])
}
#endif
