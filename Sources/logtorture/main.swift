// logtorture: the child process of the reliability tests (Tests/EventLogTests/ProcessTests.swift).
// It is not part of the library. Usage:
//   logtorture append PATH DURABILITY SEED   print "opened LASTSEQ", then append forever, printing "ack FIRST LAST" after each acknowledged append
//   logtorture append-mixed PATH DURABILITY ROUND
//                                            as append, but every fifth record holds a valid frame of the log
//                                            (StressRecords.mixedEntry); an odd ROUND first appends a reorder of over 10 MB
//   logtorture hold PATH                     open PATH as the writer, print "locked", then sleep until killed
//   logtorture follow PATH COUNT             follow PATH until COUNT records arrived; print "ok COUNT SUM"
//   logtorture store-writers PATH WRITERS    WRITERS writers (threads and tasks) write one LabelStore at once forever,
//                                            printing "ack SEQ TITLE" after each acknowledged write (StoreWriters.swift)
//   logtorture store-retain PATH             a LabelStore on PATH that snapshots every 200 records and keeps the last 100
//                                            (archiving the rest beside the log while it stays open), adding labels
//                                            "rN" forever from one thread, printing "ack SEQ TITLE" (StoreWriters.swift)
//   logtorture server-stores CONNINFO LIST STORES COMMANDS SEED
//                                            (with the Postgres trait) STORES stores on one server list write
//                                            conflicting commands, then check what they heard (ServerStores.swift)
import EventLog
import Foundation
import LabelStoreTestSupport

func fail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("logtorture: \(message)\n".utf8))
    exit(code)
}

let args = CommandLine.arguments
guard args.count >= 3 else { fail("usage: logtorture append|append-mixed|hold|follow|store-writers|store-retain PATH …", code: 64) }
let path = args[2]
/// Writes a whole line to stdout at once, unbuffered, so a kill never leaves a half-reported ack.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Appends batches of one to three `added` records forever (the batch sizes
/// from a xorshift sequence seeded with `seed`), titled `title(seq)`, printing
/// "ack FIRST LAST" after each acknowledged append.
func appendForever(to writer: LogWriter, seed: UInt64, entry: (UInt64) -> LogEntry) throws -> Never {
    var state = seed | 1
    while true {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        let n = Int(state % 3) + 1
        let first = writer.lastSeq + 1
        let entries = (0..<UInt64(n)).map { entry(first + $0) }
        let records = try writer.append(entries)
        say("ack \(records[0].seq) \(records[records.count - 1].seq)")
    }
}

switch args[1] {
case "append":
    guard args.count == 5, let durability = Durability(rawValue: args[3]), let seed = UInt64(args[4]) else {
        fail("usage: logtorture append PATH DURABILITY SEED", code: 64)
    }
    do {
        let writer = try LogWriter.open(path: path, options: .init(durability: durability, createIfMissing: true))
        say("opened \(writer.lastSeq)")
        try appendForever(to: writer, seed: seed) { StressRecords.mixedEntry($0, frame: nil) }
    } catch {
        fail("\(error)")
    }
case "append-mixed":
    guard args.count == 5, let durability = Durability(rawValue: args[3]), let round = UInt64(args[4]) else {
        fail("usage: logtorture append-mixed PATH DURABILITY ROUND", code: 64)
    }
    do {
        let writer = try LogWriter.open(path: path, options: .init(durability: durability, createIfMissing: true))
        say("opened \(writer.lastSeq)")
        let frame = try StressRecords.frameBytes(validIn: path, seq: StressRecords.embeddedSeq)
        say("frame \(frame?.count ?? 0)")
        if round % 2 == 1 {
            let record = try writer.append(StressRecords.largeReorder())
            say("ack \(record.seq) \(record.seq)")
        }
        try appendForever(to: writer, seed: round) { StressRecords.mixedEntry($0, frame: frame) }
    } catch {
        fail("\(error)")
    }
case "hold":
    do {
        let writer = try LogWriter.open(path: path, options: .init(createIfMissing: true))
        say("locked \(writer.lastSeq)")
        while true { sleep(60) }
    } catch {
        fail("\(error)")
    }
case "follow":
    guard args.count == 4, let count = UInt64(args[3]) else { fail("usage: logtorture follow PATH COUNT", code: 64) }
    do {
        var reader: LogReader?
        while reader == nil {
            do { reader = try LogReader(path: path) } catch  where error.code == .fileNotFound { usleep(1000) }
        }
        var seen: UInt64 = 0
        var sum: UInt64 = 0
        while seen < count {
            let batch = try reader!.poll()
            if batch.isEmpty {
                usleep(200)
                continue
            }
            for record in batch {
                guard record.seq == seen + 1 else { fail("saw seq \(record.seq) after \(seen)") }
                guard case .added(_, let title, _, _) = record.event, title == StressRecords.plainTitle(record.seq) else {
                    fail("record \(record.seq) has the wrong content")
                }
                seen = record.seq
                sum &+= record.seq
            }
        }
        say("ok \(seen) \(sum)")
    } catch {
        fail("\(error)")
    }
case "store-writers":
    guard args.count == 4, let writers = Int(args[3]), writers > 0 else { fail("usage: logtorture store-writers PATH WRITERS", code: 64) }
    storeWritersForever(path: path, writers: writers)
case "store-retain":
    storeWithRetentionForever(path: path)
case "server-stores":
    #if Postgres
    guard args.count == 7, let stores = Int(args[4]), let commands = Int(args[5]), let seed = UInt64(args[6]) else {
        fail("usage: logtorture server-stores CONNINFO LIST STORES COMMANDS SEED", code: 64)
    }
    serverStores(conninfo: args[2], list: args[3], stores: stores, commands: commands, seed: seed)
    #else
    fail("server-stores needs the Postgres trait (swift build --traits Postgres)", code: 64)
    #endif
default:
    fail("unknown mode \(args[1])", code: 64)
}
