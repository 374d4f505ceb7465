import EventLog
import Foundation
import Testing

@testable import LabelProjection

/// One subscriber the store oracle watches: a callback or an async stream,
/// live or started at a seq. Everything it receives is checked against the
/// oracle's history: exactly the seqs whose record changed what it depends
/// on (byte for byte), once each, in order, with the right old and new
/// values, and, for a view, row changes that rebuild the naively filtered rows.
@MainActor
final class OracleSubscriber {
    enum Kind: String { case callback, historyCallback, stream, consumedStream }

    let kind: Kind
    let dependency: Dependency
    /// For a view, the query's index in ``OracleText/queries``.
    let viewIndex: Int?
    /// The first seq it is owed.
    let from: UInt64
    let received = Collector<ChangeNotification>()
    var subscription: Subscription?
    /// A stream drained when its store's epoch ends.
    var stream: AsyncStream<ChangeNotification>?
    /// A task consuming the stream while the store is written.
    var consumer: Task<Void, Never>?

    private var verified = 0
    private var expected: [UInt64] = []
    private var scanned: UInt64
    private var mirror: [LabelID]
    private(set) var failed = false

    var name: String { "\(kind.rawValue) \(dependency) from \(from)" }

    /// Subscribes to `store` (whose state is the history's last) as `kind`, from `start` (`nil`: live).
    init(_ store: LabelStore, _ kind: Kind, _ dependency: Dependency, viewIndex: Int?, from start: UInt64?, history: OracleHistory) throws {
        self.kind = kind
        self.dependency = dependency
        self.viewIndex = viewIndex
        let from = start ?? history.lastSeq + 1
        self.from = from
        scanned = from - 1
        mirror = viewIndex.map { history.rows(query: $0, at: from - 1).map(\.id) } ?? []
        let received = self.received
        switch kind {
        case .callback:
            subscription = store.subscribe(to: dependency) { received.append($0) }
        case .historyCallback:
            subscription = try store.subscribe(to: dependency, from: from) { received.append($0) }
        case .stream, .consumedStream:
            let stream = try start.map { try store.changes(for: dependency, from: $0) } ?? store.changes(for: dependency)
            if kind == .stream {
                self.stream = stream
            } else {
                consumer = Task.detached { for await notification in stream { received.append(notification) } }
            }
        }
    }

    /// Drains the stream (which must end: its store is closed or released); `false` if it did not end in time.
    func drain(timeout: Duration = .seconds(120)) async -> Bool {
        let task: Task<Void, Never>
        if let consumer {
            task = consumer
        } else if let stream {
            let received = self.received
            task = Task.detached { for await notification in stream { received.append(notification) } }
            self.stream = nil
        } else {
            return true
        }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await task.value
                return true
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                task.cancel()
                return false
            }
            let first = await group.next()!
            group.cancelAll()
            return first
        }
    }

    /// Checks what arrived since the last check against the history through
    /// `last`: with `complete`, everything owed must be there; otherwise what
    /// arrived must be the start of it (a stream consumed concurrently).
    func verify(_ history: OracleHistory, through last: UInt64, complete: Bool, context: @autoclosure () -> String) {
        guard !failed else { return }
        while scanned < last {
            scanned += 1
            if history.value(of: dependency, viewIndex: viewIndex, at: scanned - 1)
                != history.value(of: dependency, viewIndex: viewIndex, at: scanned)
            {
                expected.append(scanned)
            }
        }
        let new = received.items(from: verified)
        let owed = Array(expected[min(verified, expected.count)...])
        let seqs = new.map(\.seq)
        let ok = complete ? seqs == owed : seqs.count <= owed.count && seqs == Array(owed.prefix(seqs.count))
        guard ok else {
            failed = true
            Issue.record(
                "\(context()): \(name) received seqs \(seqs.prefix(40)) but is owed \(owed.prefix(40)) (\(seqs.count) vs \(owed.count))")
            return
        }
        for notification in new where !check(notification, history) {
            failed = true
            Issue.record("\(context()): \(name) got a wrong notification for seq \(notification.seq)")
            return
        }
        verified += new.count
    }

    /// The notification's content against the states before and after its seq.
    private func check(_ notification: ChangeNotification, _ history: OracleHistory) -> Bool {
        let seq = notification.seq
        let before = history.states[Int(seq - 1)], after = history.states[Int(seq)]
        var ok = notification.dependency == dependency && notification.record.seq == seq
        ok = ok && notification.record.event.kind == history.events[Int(seq)]!.kind
        func bytes(_ title: String?) -> [UInt8]? { title.map { Array($0.utf8) } }
        switch dependency {
        case .title(let id):
            let change = notification.title
            ok =
                ok && change?.id == id && bytes(change?.old ?? nil) == bytes(before.row(id)?.title)
                && bytes(change?.new ?? nil) == bytes(after.row(id)?.title)
        case .isEnabled(let id):
            ok = ok && notification.isEnabled == ValueChange(id: id, old: before.row(id)?.isEnabled, new: after.row(id)?.isEnabled)
        case .label(let id):
            ok = ok && notification.label.old == before.row(id) && notification.label.new == after.row(id)
        case .enabledCount:
            ok = ok && notification.enabledCount == (before.enabledCount, after.enabledCount)
        case .membership:
            ok = ok && notification.change.membershipChanged && notification.viewChanges.isEmpty
        case .everything:
            let id = history.events[Int(seq)]!.labelID
            let named = history.events[Int(seq)]!.kind != .reordered && history.events[Int(seq)]!.kind != .rejected
            ok =
                ok && notification.viewChanges.isEmpty
                && notification.label.old == (named ? id.flatMap(before.row) : nil)
                && notification.label.new == (named ? id.flatMap(after.row) : nil)
        case .view:
            for change in notification.viewChanges {
                if case .updated(let id, let at) = change { ok = ok && mirror.indices.contains(at) && mirror[at] == id }
                if case .inserted(_, let at) = change { ok = ok && at <= mirror.count }
                if case .removed(_, let at) = change { ok = ok && mirror.indices.contains(at) }
                if case .moved(_, let from, let to) = change { ok = ok && mirror.indices.contains(from) && mirror.indices.contains(to) }
                guard ok else { return false }
                change.apply(to: &mirror)
            }
            ok = ok && !notification.viewChanges.isEmpty && mirror == history.rows(query: viewIndex!, at: seq).map(\.id)
        }
        return ok
    }
}

extension LabelEvent {
    /// The label the event names, if any.
    var labelID: LabelID? {
        switch self {
        case .added(let id, _, _, _), .renamed(let id, _, _), .toggled(let id, _), .removed(let id, _, _, _), .moved(let id, _, _): id
        case .rejected(let id, _, _): id
        case .reordered: nil
        }
    }
}
