import EventLog
import LabelProjection

/// `repair LOG`: cuts a torn tail, keeping a backup; salvages mid-log corruption only when asked.
enum Repair: Command {
    static let spec = CommandSpec(
        name: "repair",
        abstract: "Cut a torn tail (keeping a backup); with --salvage, cut everything after mid-log damage.",
        discussion: """
            A torn tail (an incomplete or damaged last record with nothing good after it, what a crash mid-write \
            leaves) is cut. Damage followed by good records is corruption: repair refuses to touch it unless --salvage \
            is given, which keeps the good records before the damage and cuts the rest (the cut bytes are also saved \
            to LOG.salvaged-<ms>). An event that contradicts the state before it is a problem too: --salvage keeps \
            the records before the first problem of either kind. Either way the original file is first copied (and \
            synced) to LOG.bak-<ms>, which never overwrites an existing file; a repair that fails before changing \
            the log removes that copy again. A sound log is left untouched. Writing commands need the log's lock, so \
            repair fails while another writer has the log open.
            """,
        arguments: [
            .positional("log", "The label log file."),
            .flag("salvage", "Also cut corruption in the middle of the log (losing the records after it)."),
            .option(
                "backup", value: "path",
                "Where to copy the original bytes first (default: LOG.bak-<ms>). Never overwritten: an existing file there is an error.")
        ],
        examples: ["repair labels.labellog", "repair labels.labellog --salvage"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = try arguments.filePath(
            why: "it cuts damaged bytes out of a file, and a server keeps a list whole through its transactions (use 'verify' to check one)"
        )
        let salvage = arguments.flag("salvage")
        guard SystemFile.exists(path) else { throw Failure("\(path): no such file") }
        // Frames first, then what the events mean: the first record the fold cannot apply.
        // A based log folds on from its base.
        var list = try LabelList.origin(of: LogReader(path: path).header, path: path)
        var inconsistent: ProjectionError?
        let found = try LogReader.scan(path: path, mode: .pointInTime) { record in
            guard inconsistent == nil else { return }
            do throws(ProjectionError) { try list.replay(record) } catch { inconsistent = error }
        }.report
        if let inconsistent {
            // Framing damage may follow the inconsistent event (the scan stops at it, so it cannot
            // come first): the salvage must then open the log in a mode that accepts it.
            return try salvageInconsistent(
                path: path, badSeq: inconsistent.seq, cause: inconsistent, laterDamage: found.damage,
                salvage: salvage, backupPath: arguments.option("backup"), console: console)
        }
        guard let damage = found.damage else {
            console.line(Escape.text("\(path): nothing to repair: \(found.lastSeq) records, \(found.fileLength) bytes, no damage"))
            return ExitStatus.success
        }
        if !damage.isTornTail && !salvage {
            throw Failure(
                "\(path): corruption at byte offset \(damage.offset), after seq \(found.lastSeq), is followed by good records (\(damage.reason)); nothing was changed. '\(Tool.name) repair --salvage' keeps seq 1…\(found.lastSeq) and cuts the \(found.droppedBytes) bytes after them (backed up first)"
            )
        }
        let backup = try backupCopy(of: path, to: arguments.option("backup"))
        let report = try removingBackupIfNothingChanged(backup, of: path) {
            let writer = try LogWriter.open(path: path, options: .init(recovery: recoveryMode(for: damage)))
            defer { writer.close() }
            return writer.recoveryReport
        }
        let kind = report.damage?.isTornTail == false ? "corruption" : "torn tail"
        console.line(
            Escape.text(
                "\(path): cut \(report.droppedBytes) bytes at byte offset \(report.validLength) (\(kind): \(report.damage?.reason ?? damage.reason))"
            ))
        console.line(Escape.text("  the log now ends at seq \(report.lastSeq), \(report.validLength) bytes"))
        console.line(Escape.text("  the original file is kept in \(backup)"))
        if let saved = report.savedTailPath { console.line(Escape.text("  the cut bytes are also in \(saved)")) }
        return ExitStatus.success
    }

    /// A record with valid framing that contradicts the state before it: refuse, or with
    /// `--salvage` keep exactly seq 1…badSeq-1 (after a backup). `laterDamage` is the framing
    /// damage the scan found after it, if any; damage followed by good records makes the default
    /// recovery mode refuse to open the log, so the writer then opens it in salvage mode.
    static func salvageInconsistent(
        path: String, badSeq: UInt64, cause: ProjectionError, laterDamage: RecoveryReport.Damage?,
        salvage: Bool, backupPath: String?, console: Console
    ) throws -> Int32 {
        guard salvage else {
            throw Failure(
                "\(path): seq \(badSeq) cannot be applied to the state before it (\(cause.message)); nothing was changed. '\(Tool.name) repair --salvage' keeps seq 1…\(badSeq - 1) and cuts the rest (backed up first)"
            )
        }
        let backup = try backupCopy(of: path, to: backupPath)
        let (cut, end, saved) = try removingBackupIfNothingChanged(backup, of: path) {
            let writer = try LogWriter.open(path: path, options: .init(recovery: recoveryMode(for: laterDamage)))
            defer { writer.close() }
            let opening = writer.recoveryReport
            let cut = opening.droppedBytes + (try writer.discardRecords(after: badSeq - 1))
            return (cut, writer.byteLength, opening.savedTailPath)
        }
        console.line(Escape.text("\(path): cut \(cut) bytes from seq \(badSeq) on (inconsistent event: \(cause.message))"))
        if let laterDamage {
            let kind = laterDamage.isTornTail ? "a torn tail" : "damage"
            console.line(Escape.text("  that includes \(kind) at byte offset \(laterDamage.offset) after it (\(laterDamage.reason))"))
        }
        console.line(Escape.text("  the log now ends at seq \(badSeq - 1), \(end) bytes"))
        console.line(Escape.text("  the original file is kept in \(backup)"))
        if let saved { console.line(Escape.text("  the bytes from byte offset \(laterDamage?.offset ?? 0) on are also in \(saved)")) }
        return ExitStatus.success
    }

    /// The recovery mode that lets the writer open a log with this framing damage: the
    /// default one cuts a torn tail but refuses damage that good records follow.
    static func recoveryMode(for damage: RecoveryReport.Damage?) -> RecoveryMode {
        guard let damage, !damage.isTornTail else { return .tolerateCorruptedTail }
        return .pointInTime
    }

    /// Runs `change`, which changes the log at `path`, after `backup` was copied from it. If
    /// `change` fails without having changed the log (it could not take the lock, or the log
    /// still has exactly the backed-up bytes), the backup is removed, so that a failed attempt
    /// leaves nothing behind; if the log may have changed, the backup stays.
    static func removingBackupIfNothingChanged<T>(_ backup: String, of path: String, _ change: () throws -> T) throws -> T {
        do {
            return try change()
        } catch {
            if (error as? EventLogError)?.code == .logInUse || sameBytes(path, backup) {
                SystemFile.unlink(backup)
            }
            throw error
        }
    }

    /// Whether the files at `a` and `b` hold the same bytes (`false` if either cannot be read).
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        do {
            let first = try SystemFile.open(a, .readOnly)
            defer { first.close() }
            let second = try SystemFile.open(b, .readOnly)
            defer { second.close() }
            guard try first.size() == second.size() else { return false }
            var offset: Int64 = 0
            while true {
                let x = try first.read(at: offset, count: 1 << 20), y = try second.read(at: offset, count: 1 << 20)
                guard x == y else { return false }
                if x.isEmpty { return true }
                offset += Int64(x.count)
            }
        } catch {
            return false
        }
    }

    /// Copies `path` to `requested`, or to a new `PATH.bak-<ms>` (`-2`, `-3`, … if taken), synced.
    /// Never overwrites: a `requested` path that exists is an error.
    static func backupCopy(of path: String, to requested: String? = nil) throws -> String {
        let stamp = requested ?? "\(path).bak-\(EventTimestamp.now().millisecondsSince1970)"
        var name = stamp
        var attempt = 2
        var copy: SystemFile
        while true {
            do {
                copy = try SystemFile.open(name, .createExclusive)
                break
            } catch {
                guard error.code == .fileExists else { throw error }
                if requested != nil {
                    throw Failure("\(name): the backup file already exists; repair never overwrites a backup (nothing was changed)")
                }
                name = "\(stamp)-\(attempt)"
                attempt += 1
            }
        }
        defer { copy.close() }
        do {
            let source = try SystemFile.open(path, .readOnly)
            defer { source.close() }
            var offset: Int64 = 0
            while true {
                let bytes = try source.read(at: offset, count: 1 << 20)
                if bytes.isEmpty { break }
                var failure: EventLogError?
                bytes.withUnsafeBytes { raw in
                    do throws(EventLogError) { try copy.write(raw, at: offset) } catch { failure = error }
                }
                if let failure { throw failure }
                offset += Int64(bytes.count)
            }
            try copy.syncAll()
            // The backup's name must be durable before the log is cut.
            try SystemFile.syncDirectory(containing: name)
        } catch {
            // A partial copy is no backup: leave nothing behind (the log is untouched so far).
            SystemFile.unlink(name)
            throw error
        }
        return name
    }
}
