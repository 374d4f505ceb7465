/// The consumer side of one stream: what the `AsyncStream`'s unfolding
/// closure calls. Releasing it (the stream and its iterator are gone) or
/// cancelling the consuming task unregisters the subscriber.
final class StreamHandle: Sendable {
    let buffer: StreamBuffer
    private let catchUp: @Sendable (_ after: UInt64, _ fold: NotificationFold?) -> Void
    private let onEnd: @Sendable () -> Void

    init(buffer: StreamBuffer, catchUp: @escaping @Sendable (UInt64, NotificationFold?) -> Void, onEnd: @escaping @Sendable () -> Void) {
        self.buffer = buffer
        self.catchUp = catchUp
        self.onEnd = onEnd
    }

    /// The next notification, or `nil` when the stream ends.
    func next() async -> ChangeNotification? {
        while true {
            switch buffer.step() {
            case .value(let notification): return notification
            case .end: return nil
            case .catchUp(let after, let fold): catchUp(after, fold)
            case .wait: if let notification = await buffer.wait() { return notification }
            }
        }
    }

    /// The consuming task was cancelled.
    func cancel() {
        buffer.cancel()
        onEnd()
    }

    deinit {
        buffer.cancel()
        onEnd()
    }
}
