#if Postgres
import EventLog
import Foundation
import LabelProjection
import LabelStorePostgres
import LabelStoreTestSupport
import Testing

/// Three devices, each a `labelreplay` process working on its own log,
/// syncing with one list on a real server of their own: random edits, each
/// device offline (not syncing) for random spells, syncs killed with SIGKILL
/// at random moments, the server restarted under them. At the end every
/// edit a device acknowledged (a write command that exited 0) is on the
/// server exactly once — as its event, or as a refusal naming its batch —
/// every device's log equals the server list byte for byte, and `verify`
/// passes everywhere.
@Suite(.serialized) struct SyncDevicesTests {
    typealias CLI = CLIOverServerTests

    struct Device {
        let path: String
        /// The batch ids of the edits it acknowledged, in order.
        var acknowledged: [String] = []
    }

    /// One seed in the suite; `LABELSTORE_SOAK=1` runs ten, each twice as long.
    static let seeds: [UInt64] =
        ProcessInfo.processInfo.environment["LABELSTORE_SOAK"] == "1" ? (0..<10).map { 0x5EED_0046 &+ $0 } : [0x5EED_0046]
    static let steps = ProcessInfo.processInfo.environment["LABELSTORE_SOAK"] == "1" ? 160 : 80

    @Test(arguments: seeds)
    func threeDevicesEndOnOneListWithEveryAcknowledgedEditOnceAfterKillsAndRestarts(seed: UInt64) throws {
        let server = try PostgresTestServer.startPrivate()
        defer { server.stop() }
        let url = FollowAcrossRestartTests.url(server, list: "devices")
        let directory = TemporaryDirectory()
        #expect(try CLI.cli(["init", url]).status == 0)
        var devices = (0..<3).map { Device(path: directory.file("device\($0).labellog")) }
        var random = SeededGenerator(seed: seed)
        var done: [String: [(outcome: String, seq: UInt64?)]] = [:]  // batch → every time a round reported it done

        func noteRound(_ output: String) throws {
            for line in output.split(separator: "\n") where line.hasPrefix("{") {
                let round = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                for entry in round["done"] as? [[String: Any]] ?? [] {
                    let batch = try #require(entry["batch"] as? String)
                    done[batch, default: []].append((try #require(entry["outcome"] as? String), (entry["seq"] as? NSNumber)?.uint64Value))
                }
            }
        }
        func sync(_ device: Device) throws {
            let result = try CLI.cli(["sync", device.path, url, "--json"])
            #expect(result.status == 0, "\(result)")
            try noteRound(result.output)
        }
        func liveIDs(_ device: Device) throws -> [String] {
            let shown = try CLI.cli(["show", device.path, "--json"])
            guard shown.status == 0, let object = try JSONSerialization.jsonObject(with: Data(shown.output.utf8)) as? [String: Any] else {
                return []
            }
            return (object["labels"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        }
        func edit(_ index: Int) throws {
            let device = devices[index]
            let ids = try liveIDs(device)
            let pick = { ids.isEmpty ? "0000" : String(ids[Int(random.next() % UInt64(ids.count))].prefix(8)) }
            let title = "d\(index)-\(random.next() % 1000)"
            let arguments: [String]
            switch ids.isEmpty ? 0 : random.next() % 6 {
            case 0: arguments = ["add", device.path, title]
            case 1: arguments = ["rename", device.path, pick(), title]
            case 2: arguments = ["toggle", device.path, pick()]
            case 3: arguments = ["remove", device.path, pick()]
            case 4: arguments = ["move", device.path, pick(), String(random.next() % UInt64(ids.count))]
            default: arguments = ["reverse", device.path]
            }
            let before = try pending(device)
            let result = try CLI.cli(arguments)
            // A refusal on the device (a label it already removed, a position out of range) acknowledges nothing.
            guard result.status == 0 else { return }
            let after = try pending(device)
            if after.count == before.count + 1 { devices[index].acknowledged.append(after.last!) }
        }
        func pending(_ device: Device) throws -> [String] {
            let status = try CLI.cli(["status", device.path, "--json"])
            guard status.status == 0, let object = try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any] else {
                return []
            }
            return (object["pending"] as? [[String: Any]] ?? []).compactMap { $0["batch"] as? String }
        }

        // A host keeping a checkpoint with the history tree's head at the list's end, as a store crossing the
        // interval does: the devices prove each one they pull past, through kills and restarts.
        var keptHeads: [HistoryHead] = []
        func keepHead() throws {
            let log = try server.open(PostgresLocation(url: url))
            defer { log.close() }
            var list = LabelList()
            var tree = HistoryTreeBuilder()
            for record in try log.read(from: 1, maxCount: 100_000) {
                try list.replay(record)
                tree.append(payload: try record.storedPayload())
            }
            guard tree.count > 0 else { return }
            let image = list.snapshotBytes(logID: log.checkpointHistoryID, fingerprint: 0, logPosition: nil)
            if try log.storeCheckpoint(seq: tree.count, image: image, frontier: tree) { keptHeads.append(tree.head) }
        }

        for device in devices { try sync(device) }
        var kills = 0
        var restarts = 0
        for _ in 0..<Self.steps {
            let index = Int(random.next() % 3)
            switch random.next() % 20 {
            case 0..<11:
                try edit(index)
            case 11..<15:
                if random.next() % 3 == 0 { try keepHead() }
                try sync(devices[index])
            case 15..<19:
                // A sync killed at a random moment: it may have pushed, pulled or noted any part of its round.
                let background = try Background(
                    try CLI.executable(), ["sync", devices[index].path, url, "--json"], directory: directory.path)
                usleep(UInt32(random.next() % 250_000))
                kill(background.pid, SIGKILL)
                background.terminate()
                try noteRound(background.printed())
                kills += 1
            default:
                // The server crashes; a sync started while it is down waits for it and finishes once it is back.
                try server.crash()
                let waiting = try Background(
                    try CLI.executable(), ["sync", devices[index].path, url, "--json"], directory: directory.path)
                Thread.sleep(forTimeInterval: 1)
                try server.restart()
                let finished = waiting.exitByItself()
                #expect(finished?.status == 0, "\(String(describing: finished))")
                try noteRound(finished?.output ?? "")
                restarts += 1
            }
        }
        // Everyone back online: two rounds each settle everything; then a head kept at the end, which each proves.
        for _ in 0..<2 { for device in devices { try sync(device) } }
        try keepHead()
        let newest = try #require(keptHeads.last)
        for device in devices {
            let result = try CLI.cli(["sync", device.path, url, "--json"])
            let round = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
            let proven = round["provenHead"] as? [String: Any]
            #expect((proven?["seq"] as? NSNumber)?.uint64Value == newest.seq, "\(device.path): \(result)")
            #expect(proven?["hash"] as? String == newest.hash.hex, "\(device.path): \(result)")
        }

        let log = try server.open(PostgresLocation(url: url))
        let records = try log.read(from: 1, maxCount: 100_000)
        log.close()
        var satisfied = 0
        var unreported = 0
        for device in devices {
            #expect(try pending(device).isEmpty, "\(device.path) still has pending edits")
            for batch in device.acknowledged {
                let reports = done[batch] ?? []
                // Reported done once by the round that finished it (a killed round's report may be lost, never doubled).
                #expect(reports.count <= 1, "batch \(batch) was done \(reports.count) times: \(reports)")
                let rejected = records.filter { record in
                    if case .rejected(_, let command, _) = record.event { return command.contains("[batch \(batch)]") }
                    return false
                }
                if let report = reports.first {
                    switch report.outcome {
                    case "refused": #expect(rejected.map(\.seq) == [report.seq].compactMap { $0 }, "batch \(batch)")
                    case "applied": #expect(rejected.isEmpty && report.seq.map { $0 <= UInt64(records.count) } == true, "batch \(batch)")
                    default: #expect(rejected.isEmpty, "batch \(batch)")
                    }
                    if report.outcome == "satisfied" { satisfied += 1 }
                } else {
                    unreported += 1  // done by a round that was killed before it printed
                    #expect(rejected.count <= 1, "batch \(batch) refused \(rejected.count) times")
                }
            }
        }
        let acknowledged = devices.map(\.acknowledged.count).reduce(0, +)
        #expect(acknowledged >= 10, "the run made too few edits to mean anything: \(acknowledged)")
        let exported = try CLI.cli(["export", url])
        #expect(exported.status == 0)
        let serverHead = try CLI.cli(["head", url])
        #expect(serverHead.status == 0, "\(serverHead)")
        for device in devices {
            let mine = try CLI.cli(["export", device.path])
            #expect(mine.output == exported.output, "\(device.path) is not the server's list, record for record")
            #expect(try CLI.cli(["head", device.path]).output == serverHead.output, "\(device.path)'s head is not the server's")
            let verified = try CLI.cli(["verify", device.path])
            #expect(verified.status == 0, "\(verified)")
        }
        #expect(try CLI.cli(["verify", url]).status == 0)
        // Each acknowledged edit makes one record (its event or its refusal) or, satisfied, none: nothing doubled, nothing lost.
        #expect(records.count <= acknowledged - satisfied, "more records than edits: something was applied twice")
        #expect(records.count >= acknowledged - satisfied - unreported, "fewer records than edits: an acknowledged edit was lost")
        print(
            "sync devices: \(acknowledged) edits acknowledged, \(records.count) records, \(kills) syncs killed, \(restarts) restarts, \(keptHeads.count) heads kept and proven"
        )
    }
}
#endif
