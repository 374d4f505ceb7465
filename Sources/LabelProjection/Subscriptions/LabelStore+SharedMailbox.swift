import EventLog

/// Subscriptions that share one ``DeliveryMailbox``: what the observable
/// models (``ObservableLabels`` and its ``ObservableView``s) are fed by.
///
/// The store's delivery queue hands notifications over in seq order and,
/// within one record, in subscription order; a mailbox is a FIFO. So the
/// notifications of every subscription sharing a mailbox come out of it in
/// one total order: record by record, and for each record the earlier
/// subscription's first. A list model that subscribed before its views has
/// therefore always applied a record by the time a view is told about it.
extension LabelStore {
    /// Registers a subscriber to `dependency` whose notifications go into
    /// `mailbox` (after the store applied each record, in the order above).
    /// Cancelling the returned subscription unregisters it and, only when
    /// `cancelsMailbox`, discards what the mailbox holds (the owner's own
    /// subscription; another sharer's must leave the mailbox alone). On a
    /// closed store the subscription comes back cancelled.
    ///
    /// - Complexity: As ``subscribe(to:on:_:)``.
    func subscribe(to dependency: Dependency, sharing mailbox: DeliveryMailbox, cancelsMailbox: Bool) -> Subscription {
        let box = SubscriberBox(id: nextSubscriberID(), dependency: dependency, sink: .target(mailbox))
        let token = subscription(for: box, cancelsMailbox: cancelsMailbox)
        if !register(box) { token.cancel() }
        return token
    }

    /// The visible ids of `query` and the list they were read from, taken
    /// together under the store's lock (so the ids are the view of exactly
    /// that list). Uses the view the store maintains for a subscriber of the
    /// query when there is one.
    ///
    /// - Complexity: O(r) for r rows when the store maintains the view; else O(n)
    ///   matches over the n labels.
    func visibleIDs(_ query: ViewQuery) -> (ids: [LabelID], list: LabelList) {
        state.withLock { s in
            let view = s.hub.view(query) ?? FilteredView(query: query, list: s.list)
            return (view.ids(in: s.list), s.list)
        }
    }
}
