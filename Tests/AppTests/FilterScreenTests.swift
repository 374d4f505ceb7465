import Foundation
import LabelProjection
import Observation
import Testing

/// The filter screen (`FilterScreen`, public API only) through the reference
/// scenarios, and against a plain-array model after every main-actor job while
/// the screen and other threads edit.
@MainActor
@Suite struct FilterScreenTests {
    /// A log path in a new temporary directory (``remove(_:)`` deletes it).
    static func temporaryLog() -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("app-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("labels.labellog").path
    }

    /// Deletes the directory of a ``temporaryLog()`` path.
    static func remove(_ path: String) {
        try? FileManager.default.removeItem(at: URL(fileURLWithPath: path).deletingLastPathComponent())
    }

    @Test func scenarioA_rowObservationThroughTheScreen() async throws {
        let path = Self.temporaryLog()
        defer { Self.remove(path) }
        let store = try await LabelStore.open(path: path, options: .init(createIfMissing: true))
        try await store.add("Amber")
        try await store.add("Cobalt", isEnabled: false)
        let screen = FilterScreen(store: store)
        #expect(screen.shown.map(\.title) == ["Amber", "Cobalt"] && screen.labels.count == 2)
        let rowsAssigned = Tally()
        withObservationTracking {
            _ = screen.labels.rows
        } onChange: {
            rowsAssigned.add()
        }
        await screen.rename(row: 0, to: "Copper")
        await screen.toggle(row: 0)
        #expect(screen.shown.map(\.title) == ["Copper", "Cobalt"] && screen.shown[0].isEnabled == false)
        #expect(rowsAssigned.count == 0, "no membership change was published")
        await screen.rename(row: 0, to: "Amber")
        try await store.add("New label")
        await screen.labels.caughtUp(to: store.lastSeq)
        #expect(screen.shown.map(\.title) == ["Amber", "Cobalt", "New label"] && screen.labels.count == 3)
        while !screen.view.rows.isEmpty { await screen.remove(row: screen.view.rows.count - 1) }
        #expect(screen.labels.count == 0 && screen.banner == nil)
        await store.close()
    }

    @Test func scenarioB_editingThroughAFilteredView() async throws {
        let path = Self.temporaryLog()
        defer { Self.remove(path) }
        let store = try await LabelStore.open(path: path, options: .init(createIfMissing: true))
        try await store.add("Grid")
        try await store.add("Tile", isEnabled: false)
        try await store.add("Ring")
        let screen = FilterScreen(store: store)
        screen.search("Ring")
        #expect(screen.shown.map(\.title) == ["Ring"])
        await screen.rename(row: 0, to: "Ring Two")
        #expect(store.labels.map(\.title) == ["Grid", "Tile", "Ring Two"])
        screen.search("")
        try await store.reverse()
        await screen.labels.caughtUp(to: store.lastSeq)
        #expect(screen.shown.map(\.title) == ["Ring Two", "Tile", "Grid"])
        await screen.rename(row: 2, to: "Grid Two")
        screen.enabledOnly(true)
        await screen.toggle(row: 1)  // Grid Two, the second enabled row
        #expect(screen.shown.map(\.title) == ["Ring Two"])
        #expect(screen.labels.rows.map(\.title) == ["Ring Two", "Tile", "Grid Two"])
        screen.enabledOnly(false)
        #expect(screen.shown.map(\.title) == ["Ring Two", "Tile", "Grid Two"] && screen.shown[2].isEnabled == false)
        screen.search("Tile")
        let staleTile = screen.view.rows[0]  // a row the screen still holds
        await screen.remove(row: 0)
        #expect(screen.shown.isEmpty && screen.labels.count == 2)
        do {
            try await staleTile.rename(to: "Tile Two")
            Issue.record("an edit of a removed label was applied")
        } catch {
            #expect(error.kind == .labelRemoved && error.message.hasPrefix("Edit skipped: label was removed."))
        }
        #expect(store.labels.map(\.title) == ["Ring Two", "Grid Two"], "nothing was re-inserted")
        await store.close()
    }

    /// The screen's actions, a background writer and query changes, in random
    /// order (seeded); after every main-actor job the screen shows exactly the
    /// plain-array model's answer for the store's state it has applied.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func theScreenMatchesAPlainArrayAfterEveryMainActorJob(seed: UInt64) async throws {
        let path = Self.temporaryLog()
        defer { Self.remove(path) }
        let store = try await LabelStore.open(path: path, options: .init(createIfMissing: true))
        let screen = FilterScreen(store: store)
        var random = SplitMix(seed: seed)
        let titles = ["Amber", "Cobalt", "Ring", "Ring Two", "Tile", "Café", "CAFE", "grid", "Grid Two"]
        for title in titles.prefix(5) { try await store.add(title, isEnabled: random.next() % 3 != 0) }
        let background = Task.detached {
            var random = SplitMix(seed: seed &+ 100)
            for _ in 0..<150 {
                let labels = store.labels
                do {
                    if labels.isEmpty || random.next() % 4 == 0 {
                        try await store.add(titles[Int(random.next() % UInt64(titles.count))])
                    } else {
                        let id = labels[Int(random.next() % UInt64(labels.count))].id
                        switch random.next() % 3 {
                        case 0: try await store.toggle(id)
                        case 1: try await store.rename(id, to: titles[Int(random.next() % UInt64(titles.count))])
                        default: try await store.move(id, to: Int(random.next() % UInt64(labels.count)))
                        }
                    }
                } catch {}  // a race with the screen's edits (a removed label): refused, nothing written
            }
        }
        var checks = 0
        func check(_ step: String) {
            checks += 1
            // The plain-array model: the list the model has applied, filtered by the query's rule.
            let list = screen.labels.rows.map { (id: $0.id, title: $0.title, isEnabled: $0.isEnabled) }
            let query = ViewQuery(screen.view.query, enabledOnly: screen.view.enabledOnly)
            let expected = list.filter { query.matches(Label(id: $0.id, title: $0.title, isEnabled: $0.isEnabled, version: 0)) }
            #expect(screen.view.rows.map(\.id) == expected.map(\.id), "\(step): the view is its query over the list")
            #expect(screen.labels.count == list.count && screen.labels.enabledCount == list.count(where: \.isEnabled), "\(step)")
        }
        for step in 0..<200 {
            let rows = screen.view.rows.count
            switch random.next() % 8 {
            case 0: screen.search(["", "ring", "cafe", "i", "tile"][Int(random.next() % 5)])
            case 1: screen.enabledOnly(random.next() % 2 == 0)
            case 2 where rows > 0: await screen.toggle(row: Int(random.next() % UInt64(rows)))
            case 3 where rows > 0: await screen.rename(row: Int(random.next() % UInt64(rows)), to: titles[Int(random.next() % 9)])
            case 4 where rows > 0 && screen.labels.count > 3: await screen.remove(row: Int(random.next() % UInt64(rows)))
            case 5 where rows > 0:
                await screen.move(row: Int(random.next() % UInt64(rows)), toListPosition: Int(random.next() % UInt64(screen.labels.count)))
            default: await Task.yield()
            }
            check("step \(step)")
        }
        await background.value
        await screen.labels.caughtUp(to: store.lastSeq)
        check("end")
        #expect(screen.labels.rows.map(\.title) == store.labels.map(\.title))
        #expect(screen.view.rows.map(\.id) == store.view(screen.view.viewQuery).map(\.id))
        #expect(checks == 201)
        await store.close()
    }
}

/// A count an observation's `onChange` adds to (it is called synchronously, on the main actor here).
final class Tally: @unchecked Sendable {
    private(set) var count = 0
    func add() { count += 1 }
}

/// A small seeded generator (SplitMix64), so a failing run is reproduced by its seed.
struct SplitMix: Sendable {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
