import Dispatch
import Foundation
import Synchronization

@testable import LabelProjection

/// What a main-actor handler saw, kept on the main actor (so reading it in a
/// main-actor test needs no lock).
@MainActor
final class MainActorLog<Element> {
    private(set) var all: [Element] = []
    /// Calls that started while another was running (must stay 0).
    private(set) var overlaps = 0
    private var running = false

    var count: Int { all.count }

    func append(_ element: Element) { all.append(element) }

    /// Records `element` as one handler call, counting overlapping calls.
    func call(_ element: Element) {
        if running { overlaps += 1 }
        running = true
        all.append(element)
        running = false
    }
}

/// Runs `body(n)` for `n` in `0..<count`, each on its own new thread, all at
/// once, and returns when every one has finished.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        let group = DispatchGroup()
        for n in 0..<count {
            group.enter()
            Thread {
                body(n)
                group.leave()
            }.start()
        }
        group.notify(queue: .global()) { done.resume() }
    }
}

/// Waits until `condition` holds, polling every millisecond, and returns
/// whether it did. The bound (a minute) only keeps a broken test from hanging;
/// the caller's `#expect` on the result decides pass or fail. Runs on the
/// caller's actor, so a main-actor test can poll main-actor state (and the main
/// actor is free to run deliveries between polls).
///
/// The bound counts only the time this poller was running, not the time it
/// waited for a thread: when long synchronous tests hold every thread of the
/// cooperative pool (two here), no task runs — neither the delivery being
/// waited for nor this poller — and a wall-clock deadline would pass during
/// that stall and fail the check at the first poll after it, before the
/// delivery queued meanwhile had its turn (seen: 384 of 500 notifications,
/// after 861 s of a fully loaded machine). A gap between two polls counts at
/// most 10 ms, so a minute of polls that see no progress is still a failure.
func eventually(
    isolation: isolated (any Actor)? = #isolation, within limit: Duration = .seconds(60), _ condition: () -> Bool
) async -> Bool {
    let clock = ContinuousClock()
    var running = Duration.zero
    var last = clock.now
    while !condition() {
        let now = clock.now
        running += min(now - last, .milliseconds(10))
        last = now
        if running >= limit { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}

/// An object whose release a test can watch through a weak reference.
final class Token: Sendable {}

/// Whether the caller runs on the main dispatch queue, the main actor's
/// executor: a non-trapping check that main-actor code really runs there.
/// (Not `Thread.isMainThread`: under `swift test` on Linux the process's first
/// thread waits for the test run while another thread drains the main queue,
/// so main-actor jobs — test bodies included — run on that other thread.)
enum MainQueue {
    /// A key set on `DispatchQueue.main` only.
    static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }
}
