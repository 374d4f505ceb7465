import EventLog
import Foundation
import Synchronization

/// Following a shared storage: records other writers append (other stores,
/// processes or hosts) are folded and published to this store's subscribers.
extension LabelStore {
    /// Starts a background thread that follows the storage: it waits with
    /// `EventStorage.waitForAppends(after:timeout:)` (a server log wakes on a
    /// notification and polls besides; other storages poll) and folds what
    /// other writers appended with ``refresh()``, publishing it to this store's
    /// subscribers like the store's own writes: each hears only what it
    /// depends on, in seq order, no gap and no duplicate, and async streams
    /// (``changes(for:from:)``) get the same.
    ///
    /// Calling it again while following does nothing. The thread ends at
    /// ``close()-553o2``, at ``stopFollowing()``, or once the store is released
    /// (it holds the store weakly), within `wait`.
    ///
    /// - Parameters:
    ///   - wait: The longest one wait on the storage lasts before the thread
    ///     checks whether to stop. Default: 1 s.
    ///   - onError: Called (on the following thread) when the storage cannot be
    ///     read or waited on; the thread keeps trying with a growing pause (up
    ///     to 5 s). A store whose log contradicts its projection
    ///     (``StoreError/Kind/inconsistentEvent``) stops following after reporting it.
    public func startFollowing(wait: Duration = .seconds(1), onError: (@Sendable (StoreError) -> Void)? = nil) {
        let follower = Follower()
        let started = state.withLock { s -> Bool in
            guard s.follower == nil, !s.closed else { return false }
            s.follower = follower
            return true
        }
        guard started else { return }
        let storage = self.storage
        let log = self.log
        let thread = Thread { [weak self] in
            var pause = Duration.milliseconds(50)
            while !follower.stopped.load(ordering: .acquiring) {
                let after = log.appliedSeq
                do throws(StoreError) {
                    let more: Bool
                    do throws(EventLogError) {
                        more = try storage.waitForAppends(after: after, timeout: wait)
                    } catch {
                        throw StoreError.storage(error)
                    }
                    guard let store = self, !follower.stopped.load(ordering: .acquiring) else { return }
                    if more { try store.refresh() }
                    pause = .milliseconds(50)
                } catch {
                    if error.code == .closed || self == nil { return }
                    onError?(error)
                    if error.kind == .inconsistentEvent { return }
                    Thread.sleep(forTimeInterval: pause.timeInterval)
                    pause = min(pause * 2, .seconds(5))
                }
            }
        }
        thread.name = "LabelStore.follow"
        thread.start()
    }

    /// Stops following (see ``startFollowing(wait:onError:)``); the thread ends
    /// within its `wait`. A store can follow again afterwards.
    public func stopFollowing() {
        let follower = state.withLock { s -> Follower? in
            defer { s.follower = nil }
            return s.follower
        }
        follower?.stopped.store(true, ordering: .releasing)
    }

    /// Whether the store is following its storage.
    public var isFollowing: Bool { state.withLock { $0.follower != nil } }
}

/// A following thread's stop flag.
final class Follower: Sendable {
    let stopped = Atomic<Bool>(false)
}
