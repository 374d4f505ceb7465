import EventLog
import Foundation

/// The two ends of a `copy`: a source read in seq order (a file through a
/// lock-free `LogReader`, a server list through its storage) and a
/// destination written through `EventStorage.append(_:expectedLastSeq:)`.
extension Copy {
    /// Where `copy` reads: records in seq order, and a way to wait for more.
    final class Source {
        let display: String
        private let file: LogReader?
        private let storage: (any EventStorage)?
        private var buffer: [EventRecord] = []
        private var index = 0
        private var nextSeq: UInt64 = 1

        /// Opens `text` (a path or a server URL) for reading; a missing file or list is an error.
        init(_ text: String) throws {
            let location = LogLocation.resolve(text)
            display = location.display
            switch location {
            case .file(let path):
                file = try Replay.openReader(path)
                storage = nil
            case .server:
                file = nil
                storage = try ServerStorage.open(location).storage
            }
        }

        /// The next record, or `nil` when there is none now.
        func next() throws -> EventRecord? {
            if let file { return try file.next() }
            if index == buffer.count {
                buffer = try storage!.read(from: nextSeq, maxCount: Copy.batchSize)
                index = 0
                guard !buffer.isEmpty else { return nil }
            }
            defer { index += 1 }
            nextSeq = buffer[index].seq + 1
            return buffer[index]
        }

        /// Up to `count` records that are there now.
        func batch(_ count: Int) throws -> [EventRecord] {
            var records: [EventRecord] = []
            while records.count < count, let record = try next() { records.append(record) }
            return records
        }

        /// Waits until the source may hold records after `seq` (a server list's
        /// notification or poll; a file is polled five times a second), or `timeout`.
        func waitForAppends(after seq: UInt64, timeout: Duration) throws {
            if let storage {
                _ = try storage.waitForAppends(after: seq, timeout: timeout)
            } else {
                Thread.sleep(forTimeInterval: min(0.2, timeout.timeInterval))
            }
        }

        /// A progress line's figures: bytes of a file, records of a server list.
        func progress(lastCopied seq: UInt64) -> (done: Int64, total: Int64?, unit: String) {
            if let file { return (file.offset, try? file.fileSize(), "bytes") }
            let last: UInt64? = try? storage?.refreshLastSeq()
            return (Int64(seq), last.map { Int64($0) }, "records")
        }
    }

    /// Where `copy` writes.
    struct Destination {
        let display: String
        let storage: any EventStorage
        /// Whether the copy created it (a new file, or a new list).
        let created: Bool
        /// Closes a file log this command opened (a server list is closed with the others at exit).
        let close: () -> Void
        /// Undoes the creation of a destination this copy created and left
        /// empty: closes and removes a new file. A new list stays (empty, or with the batches
        /// committed), as `init` would have made it: no command removes a list.
        let discard: () -> Void

        /// Opens `text` for appending, creating a missing file or list (and
        /// schema); with `basedOn`, a missing file is created with that header
        /// (a based log of the source's history), and an existing one must be one.
        static func open(_ text: String, console: Console, basedOn basedHeader: LogHeader? = nil) throws -> Destination {
            let location = LogLocation.resolve(text)
            switch location {
            case .file(let path):
                let writer = try Copy.openForAppending(path, basedOn: basedHeader, command: "copy")
                let report = writer.recoveryReport
                if report.droppedBytes > 0 {
                    console.warning(
                        "\(path): opening for writing cut \(report.droppedBytes) bytes at byte offset \(report.validLength), after seq \(report.lastSeq) (\(report.damage?.reason ?? "torn tail"))"
                    )
                }
                return Destination(
                    display: path, storage: writer, created: writer.created, close: { writer.close() },
                    discard: {
                        writer.close()
                        try? FileManager.default.removeItem(atPath: path)
                    })
            case .server:
                let creation = try ServerStorage.create(location, basedOn: basedHeader)
                if let basedHeader, !creation.createdList {
                    let opened = creation.opened
                    try Copy.checkBasedDestination(
                        opened.display, logID: LabelID(opened.logID), firstSeq: (opened.storage.base?.lastCutSeq ?? 0) + 1,
                        chainValue: opened.baseChainValue, matches: basedHeader)
                }
                return Destination(
                    display: creation.opened.display, storage: creation.opened.storage, created: creation.createdList, close: {},
                    discard: {})
            }
        }
    }
}
