import EventLog
import Foundation
import LabelProjection

/// Turns any error a command throws into the sentence shown after `error:`, in
/// one style whatever layer it comes from: the path first, then the reason in
/// words (an OS error as its text with the errno name in parentheses, e.g.
/// `permission denied (EACCES)`; ranges as `0 to 4`, never Swift's `0..<5`),
/// then what to do next. Internal names (the temporary file a new log is
/// created under) never show.
enum ErrorText {
    /// The readable text of `error`; `path` is the log the command was given, put first when the error does not name it.
    static func describe(_ error: any Error, path: String? = nil) -> String {
        switch error {
        case let failure as Failure:
            return failure.message
        case let error as StoreError:
            return describe(error, path: path)
        case let error as EventLogError:
            return describe(error)
        case let error as ProjectionError:
            return prefixed("inconsistent log: " + words(error.message), path: path) + verifyHint(path)
        case let error as SnapshotError:
            return prefixed(words(error.message), path: path)
        default:
            return prefixed(String(describing: error), path: path)
        }
    }

    /// A store refusal or failure; storage failures show the log's own error.
    static func describe(_ error: StoreError, path: String? = nil) -> String {
        var text: String
        let short = error.id.map(EventText.shortID)
        switch error.code {
        case .storage(let underlying):
            return describe(underlying) + (error.auditSeq.map { " (recorded as rejected audit record seq \($0))" } ?? "")
        case .inconsistentEvent(let underlying):
            text = "inconsistent log: " + words(underlying.message) + verifyHint(path)
        case .labelRemoved(let seq):
            // The store's own sentence ("Edit skipped: label was removed. (removed at seq N; label ID)") is kept as is.
            text = sentence(error.message)
            if let path, let short {
                text += "; '\(Tool.name) log \(argument(path)) --label \(short)' shows its history up to seq \(seq)"
            }
        case .labelNeverAdded:
            text = "no label has id \(error.id?.description ?? "?") (it was never added)"
            if let path { text += "; '\(Tool.name) show \(argument(path))' lists the labels" }
        case .staleVersion(_, let current):
            text = sentence(error.message)
            if let path {
                text += "; check the state with '\(Tool.name) show \(argument(path))', then retry with --expect-version \(current)"
            }
        case .positionOutOfRange:
            text = words(error.message)
            if let path { text += "; '\(Tool.name) show \(argument(path))' shows the positions" }
        default:
            text = words(error.message)
        }
        if let audit = error.auditSeq { text += " (recorded as rejected audit record seq \(audit))" }
        return prefixed(text, path: path)
    }

    /// A log error: `PATH: message (byte offset N, last good seq M): reason (ENAME); what to do`.
    static func describe(_ error: EventLogError) -> String {
        let path = error.path.map(userPath)
        var text = words(error.message)
        if error.code == .schemaMissing || error.code == .listNotFound {
            // The backend words it for the library too; the tool's reader needs only the command.
            text = text.replacing(#/ \(create it with createIfMissing, or '\S+ init (.*)'\)/#) {
                "; '\(Tool.name) init \(argument(String($0.1)))' creates it"
            }
        }
        var facts: [String] = []
        if let offset = error.offset { facts.append("byte offset \(offset)") }
        if let seq = error.lastGoodSeq { facts.append("last good seq \(seq)") }
        if !facts.isEmpty { text += " (" + facts.joined(separator: ", ") + ")" }
        if let code = error.errno { text += ": " + Platform.describe(errno: code) }
        text += hint(for: error, path: path)
        return prefixed(text, path: path)
    }

    /// What to do next about a log error.
    static func hint(for error: EventLogError, path: String?) -> String {
        let log = path.map(argument) ?? "LOG"
        let server = path.map(LogLocation.isServer) ?? false
        switch error.code {
        case .corruptRecord, .seqGap:
            // Every hint names a command that works on that location: `repair` cuts files only.
            if server {
                return "; '\(Tool.name) verify \(log)' names the damaged seq; a server list is mended on the server (restore "
                    + "those rows from a backup: docs/POSTGRES.md, \"Errors\")"
            }
            return "; '\(Tool.name) verify \(log)' tells what is damaged, '\(Tool.name) repair \(log)' what can be cut"
        case .emptyFile, .notALog, .corruptHeader:
            return error.message.contains("label log") || server ? "" : "; is it a label log?"
        case .ioError:
            switch error.errno {
            case EACCES, EPERM: return "; check the permissions of the file and its directory"
            case ENOSPC, EDQUOT: return "; free some space and retry"
            case EROFS: return "; the file system is read-only: use another path"
            case ENOTDIR: return "; a part of the path is not a directory"
            default: return ""
            }
        default:
            return ""
        }
    }

    /// The path the user gave: a new log is written under `PATH.creating-<pid>-<random>` first, never shown.
    static func userPath(_ path: String) -> String {
        guard let marker = path.range(of: ".creating-") else { return path }
        return String(path[..<marker.lowerBound])
    }

    /// `PATH: text`, unless `text` already starts with the path (or there is none).
    private static func prefixed(_ text: String, path: String?) -> String {
        guard let path, !path.isEmpty, !text.hasPrefix(path + ":") else { return text }
        return "\(path): \(text)"
    }

    /// ` (run 'labelreplay verify PATH')`.
    private static func verifyHint(_ path: String?) -> String {
        path.map { "; '\(Tool.name) verify \(argument($0))' finds the first record that contradicts the ones before it" } ?? ""
    }

    /// `text` as one argument of a command a hint names: as it is when a shell
    /// reads it so, else in double quotes (`"postgres://…?host=/run&list=x"`;
    /// hints are quoted in single quotes already).
    static func argument(_ text: String) -> String {
        let plain =
            !text.isEmpty
            && text.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "_-./:@%+=,~".unicodeScalars.contains(scalar))
            }
        if plain { return text }
        var quoted = "\""
        for character in text {
            if "\"\\$`".contains(character) { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }

    /// A library sentence as it is, without its final period (more follows it).
    private static func sentence(_ message: String) -> String {
        var text = message
        while text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// A library sentence in the tool's style: lowercase start, no final period, ranges in words
    /// (`0..<5` is `0 to 4`, `0...5` is `0 to 5`).
    static func words(_ message: String) -> String {
        var text = message
        if let first = text.first, first.isUppercase, !(text.dropFirst().first?.isUppercase ?? false) {
            text = first.lowercased() + text.dropFirst()
        }
        while text.hasSuffix(".") { text.removeLast() }
        let pattern = /(-?\d+)(\.\.<|\.\.\.)(-?\d+)/
        text = text.replacing(pattern) { match in
            let low = Int(match.1) ?? 0
            let high = (Int(match.3) ?? 0) - (match.2 == "..<" ? 1 : 0)
            return high < low ? "(none: the list is empty)" : "\(low) to \(high)"
        }
        return text
    }
}
