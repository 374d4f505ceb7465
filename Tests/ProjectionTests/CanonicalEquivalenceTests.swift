import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

@testable import LabelProjection

/// Titles that are canonically equivalent (`==` as Swift `String`s) but not
/// the same bytes: the fold stores the exact bytes, so every notion of
/// "the title changed" is the bytes; and queries that are equal match alike.
@Suite struct CanonicalEquivalenceTests {
    /// Alef with madda above, precomposed (U+0622) and decomposed (U+0627 U+0653), then beh.
    static let composed = "\u{622}ب"
    static let decomposed = "\u{627}\u{653}ب"

    /// A store holding one label titled `composed`, renamed (by a raw entry, as import, revert or another writer would) to `decomposed`.
    func storeWithCanonicalRename() throws -> (LabelStore, LabelID) {
        let store = try makeStore()
        let id = try store.add(Self.composed)
        return (store, id)
    }

    func renameToDecomposed(_ store: LabelStore, _ id: LabelID) throws {
        try store.append(entries: [LogEntry(.renamed(id: id, oldTitle: Self.composed, newTitle: Self.decomposed))])
    }

    @Test func theTitlesAreEqualStringsButDifferentBytes() {
        #expect(Self.composed == Self.decomposed)
        #expect(!String.sameBytes(Self.composed, Self.decomposed))
        #expect(String.sameBytes(Self.composed, "\u{622}ب") && String.sameBytes(nil, nil) && !String.sameBytes(nil, ""))
    }

    @Test func aCanonicallyEquivalentRenameNotifiesTitleLabelAndEverythingSubscribers() throws {
        let (store, id) = try storeWithCanonicalRename()
        let (s1, title) = record(store, .title(id))
        let (s2, label) = record(store, .label(id))
        let (s3, isEnabled) = record(store, .isEnabled(id))
        try renameToDecomposed(store, id)
        #expect(store.label(id)?.version == 2, "the fold stores the new bytes and moves the version")
        #expect(title.all.map(\.seq) == [2])
        #expect(label.all.map(\.seq) == [2])
        #expect(isEnabled.all.isEmpty)
        let change = try #require(title.all.first?.title)
        #expect(change.old.map { Array($0.utf8) } == Array(Self.composed.utf8))
        #expect(change.new.map { Array($0.utf8) } == Array(Self.decomposed.utf8))
        #expect(label.all.first?.label.old?.version == 1 && label.all.first?.label.new?.version == 2)
        _ = (s1, s2, s3)
    }

    @Test func aHistorySubscriberIsToldOfACanonicallyEquivalentRenameToo() throws {
        let (store, id) = try storeWithCanonicalRename()
        try renameToDecomposed(store, id)
        let received = Collector<ChangeNotification>()
        let subscription = try store.subscribe(to: .title(id), from: 1) { received.append($0) }
        #expect(received.all.map(\.seq) == [1, 2])
        subscription.cancel()
    }

    @Test func aMaintainedViewSeesALabelEnterItThroughACanonicallyEquivalentRename() throws {
        let (store, id) = try storeWithCanonicalRename()
        let query = ViewQuery("\u{627}")  // plain alef
        let (subscription, received) = record(store, .view(query))
        var mirror = store.view(query).map(\.id)
        try renameToDecomposed(store, id)
        for notification in received.all { for change in notification.viewChanges { change.apply(to: &mirror) } }
        let naive = store.labels.filter(query.matches).map(\.id)
        #expect(store.view(query).map(\.id) == naive, "the maintained view agrees with filtering the list")
        #expect(mirror == naive, "the subscriber's row changes rebuild the view's rows")
        #expect(
            store.view(query).map { Array($0.title.utf8) } == store.labels.filter(query.matches).map { Array($0.title.utf8) },
            "the maintained view shows the new bytes")
        subscription.cancel()
    }

    @MainActor
    @Test func anObservableRowFollowsACanonicallyEquivalentRenameSoItsVersionStillWrites() throws {
        let (store, id) = try storeWithCanonicalRename()
        let model = ObservableLabels(store: store)
        try renameToDecomposed(store, id)
        model.update()
        let row = try #require(model.row(id))
        #expect(row.version == store.label(id)?.version)
        #expect(Array(row.title.utf8) == Array(Self.decomposed.utf8))
        try store.rename(id, to: "Next", options: WriteOptions(expectation: .label(id, version: row.version)))
        model.update()
        #expect(row.title == "Next")
    }

    @Test func renamingToACanonicallyEquivalentTitleIsARenameAndRenamingToTheSameBytesIsNot() throws {
        let (store, id) = try storeWithCanonicalRename()
        #expect(try store.rename(id, to: Self.composed).isEmpty, "the same bytes: nothing to append")
        let records = try store.rename(id, to: Self.decomposed)
        #expect(records.count == 1)
        #expect(store.label(id).map { Array($0.title.utf8) } == Array(Self.decomposed.utf8))
    }

    @Test func labelsWithCanonicallyEquivalentTitlesAreDifferentValues() {
        let id = testID(1)
        let a = Label(id: id, title: Self.composed, isEnabled: true, version: 1)
        let b = Label(id: id, title: Self.decomposed, isEnabled: true, version: 1)
        #expect(a != b)
        #expect(Set([a, b]).count == 2)
        #expect(a == Label(id: id, title: "\u{622}ب", isEnabled: true, version: 1))
    }
}
