import EventLog
import Foundation

/// What `log --follow` checks before each poll: that the file it reads is
/// still the log at its path, holding what was printed.
///
/// - **Replaced** (another file moved or copied to the path: a new device
///   and inode): the new file is opened. If it holds the last record read,
///   unchanged (the same history — a copy that was extended and moved into
///   place), following goes on from the next seq, with a note on standard
///   error. Otherwise following stops with exit 1, saying so.
/// - **Cut or rewritten** (the file is shorter than the records read, or the
///   last record read is no longer there as it was): what was printed is no
///   longer the log's history; following stops with exit 1, saying where the
///   log now ends.
/// - **Gone** (nothing at the path): a note, once; the open file is followed
///   on, and a file that appears at the path later is checked as a replacement.
struct FollowWatch {
    let path: String
    private var identity: Platform.FileIdentity?
    private var warnedGone = false

    /// Watches `path`, whose file was just opened.
    init(path: String) {
        self.path = path
        identity = Platform.identity(of: path)
    }

    /// Checks the file behind `replay`; returns a note to print when it moved on
    /// to a replacement, throws ``Failure`` when following cannot go on.
    mutating func check(_ replay: Replay) throws -> String? {
        let size = try replay.fileSize()
        if size < replay.recordsEnd {
            throw Failure(
                "\(path): the log was cut while it was followed: it is now \(size) bytes, but seq \(replay.lastSeq), already printed, ends at byte offset \(replay.recordsEnd)\(nowEnds()); the records printed after that point are no longer in the log. Stopped; '\(Tool.name) log \(path) --follow' follows it from its new end"
            )
        }
        if try !replay.holdsLastRecord() {
            throw Failure(
                "\(path): the log was rewritten while it was followed: seq \(replay.lastSeq), already printed, is no longer the record at its byte offset\(nowEnds()). Stopped; '\(Tool.name) log \(path) --follow' follows it from its new end"
            )
        }
        let now = Platform.identity(of: path)
        guard now != identity else { return nil }
        guard let now else {
            guard !warnedGone else { return nil }
            warnedGone = true
            return
                "\(path): the file was moved away or deleted; still following the file that was open (a new file at this path will be checked)"
        }
        identity = now
        warnedGone = false
        let reopened: Bool
        do {
            reopened = try replay.reopen()
        } catch {
            throw Failure(
                "\(path): the file was replaced while it was followed, by one that cannot be read as a log (\(ErrorText.describe(error))). Stopped"
            )
        }
        guard reopened else {
            throw Failure(
                "\(path): the file was replaced while it was followed, by a log that does not hold seq \(replay.lastSeq) as it was printed (another log, or another history)\(nowEnds()). Stopped; '\(Tool.name) log \(path) --follow' follows the new file from its end"
            )
        }
        return
            "\(path): the file was replaced by another file holding the same history (seq \(replay.lastSeq) unchanged); following the new file from seq \(replay.lastSeq + 1)"
    }

    /// `; it now ends at seq N`, read from the file at the path (empty if it cannot be read).
    private func nowEnds() -> String {
        guard let reader = try? LogReader(path: path) else { return "" }
        try? reader.skip(toSeq: .max)
        return "; it now ends at seq \(reader.nextSeq - 1)"
    }
}

extension Log {
    /// Follows the log until interrupted: each poll first checks the file (``FollowWatch``), then
    /// reads what was appended with `drain`, which returns false once past `--to`.
    static func followLive(_ replay: Replay, path: String, console: Console, drain: () throws -> Bool) throws {
        var watch = FollowWatch(path: path)
        var more = true
        while more && !console.outputFailed {
            Thread.sleep(forTimeInterval: 0.2)
            if let note = try watch.check(replay) { console.warning(note) }
            do {
                more = try drain()
            } catch let error as EventLogError where error.code == .corruptRecord || error.code == .seqGap {
                // Perhaps the file was cut and written again between the check and the read: say that, if so.
                _ = try watch.check(replay)
                throw error
            }
            console.flush()
        }
    }

    /// Follows a server list until interrupted: waits for appends (the list's
    /// notification, or the backend's timed poll), then reads them with `drain`.
    /// A server list is never replaced or cut under a reader, so there is nothing to watch.
    static func followServer(_ storage: any EventStorage, after replay: Replay, console: Console, drain: () throws -> Bool) throws {
        var more = true
        while more && !console.outputFailed {
            guard try storage.waitForAppends(after: replay.lastSeq, timeout: .seconds(1)) else { continue }
            more = try drain()
            console.flush()
        }
    }
}
