import EventLog
import Foundation
import LabelStoreTestSupport
import Testing

/// `copy` of a based history (its records before a cut archived or
/// dropped): the destination is a based log of the same history — the same
/// records, the same head, an archive that still joins it —
/// resumable like any copy; a destination of another history is refused.
@Suite struct BasedCopyTests {
    @Test func aBasedLogCopiesToABasedLogThatItsArchiveStillJoins() async throws {
        let scratch = try Scratch()
        let path = scratch.path("h.labellog")
        _ = try HistoryIndexCommandTests.makeHistory(at: path, seed: 31, writes: 600)
        let last = UInt64(try LogReader.readAll(path: path).records.count)
        #expect(try await CLI.run(["archive", path, "--before", "301"]).status == 0)
        let archive = scratch.path("h.1-300.labellog")

        // Into another directory: the archive is named by its absolute path.
        try FileManager.default.createDirectory(atPath: scratch.path("elsewhere"), withIntermediateDirectories: false)
        let copy = scratch.path("elsewhere/copy.labellog")
        let copied = try await CLI.run(["copy", path, copy, "--json"]).json()
        #expect(copied["from"] as? Int == 301 && copied["to"] as? Int == Int(last) && copied["created"] as? Bool == true, "\(copied)")
        let header = try LogReader(path: copy).header
        let original = try LogReader(path: path).header
        #expect(header.logID == original.logID && header.firstSeq == 301 && header.previousChecksum == original.previousChecksum)
        #expect(header.base?.disposition == .archived(file: URL(fileURLWithPath: archive).standardizedFileURL.path))
        // The records are the source's; the head is the same; the archive joins the copy.
        let same = try LogReader.readAll(path: path).records == LogReader.readAll(path: copy).records
        #expect(same, "the copy's records are not the source's")
        let heads = (
            try await CLI.run(["head", path, "--json"]).json()["head"] as? String,
            try await CLI.run(["head", copy, "--json"]).json()["head"] as? String
        )
        #expect(heads.0 != nil && heads.0 == heads.1)
        let verified = try await CLI.run(["verify", copy])
        #expect(verified.status == 0 && verified.stdout.contains("the archive joins the log"), "\(verified)")
        // Seqs before the cut are answered from the archive, as for the source.
        let atArchived = (
            try await CLI.run(["show", path, "--at", "120", "--json"]).stdout,
            try await CLI.run(["show", copy, "--at", "120", "--json"]).stdout
        )
        #expect(atArchived.0 == atArchived.1 && !atArchived.0.isEmpty)

        // Again: nothing to copy (a copy resumes where it stopped).
        let again = try await CLI.run(["copy", path, copy, "--json"]).json()
        #expect(again["copied"] as? Int == 0 && again["skipped"] as? Int == Int(last), "\(again)")

        // Beside the source, the archive keeps its file name.
        let beside = scratch.path("beside.labellog")
        #expect(try await CLI.run(["copy", path, beside]).status == 0)
        #expect(try LogReader(path: beside).header.base?.disposition == .archived(file: "h.1-300.labellog"))
        #expect(try await CLI.run(["verify", beside]).status == 0)

        // A destination of another history (a whole log; a based log of another cut) is refused, unchanged.
        for (name, prepare) in [("whole.labellog", ["init"]), ("other.labellog", [])] {
            let other = scratch.path(name)
            if prepare.isEmpty {
                try FileManager.default.copyItem(atPath: path, toPath: other)
                #expect(try await CLI.run(["archive", other, "--before", "401", "--delete"]).status == 0)
            } else {
                #expect(try await CLI.run(prepare + [other]).status == 0)
            }
            let before = try bytes(other)
            let refused = try await CLI.run(["copy", path, other])
            #expect(refused.status == 1 && refused.stderr.contains("another history"), "\(name): \(refused)")
            #expect(try bytes(other) == before, "\(name) changed")
        }
    }
}
