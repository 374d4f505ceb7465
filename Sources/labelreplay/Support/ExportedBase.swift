import EventLog
import Foundation
import LabelProjection

/// The first line of an export that starts from a base (docs/CLI.md,
/// "Exporting a based history"): a based log exported without its archive
/// holds the records from its first seq on, and those only make sense after
/// the base's list, so the export carries the base itself; `import` then
/// creates a based log of the same history (the same log id, first seq,
/// chained checksum and base), which the archive, brought back, still joins.
///
/// `{"base":{"block":"…","chain":N,"created":"…","firstSeq":N,"logID":"…"}}`:
/// `block` is the base block (docs/FORMAT.md, "Base block", its checksum
/// included) in base64, `chain` the chained checksum of the record before
/// `firstSeq` (the header's), `created` the log's creation time.
struct ExportedBase: Codable, Equatable {
    /// The fields, under the line's one key `base`.
    struct Fields: Codable, Equatable {
        var block: String
        var chain: UInt32
        var created: String
        var firstSeq: UInt64
        var logID: LabelID
    }

    var base: Fields

    /// The line for the file whose header is `header` (a based log or list,
    /// or an archive that is itself based); an archive named relative to
    /// `directory` (the file's directory) is named by its absolute path, so an
    /// import anywhere still finds it.
    init?(header: LogHeader, directory: String?) {
        guard let logBase = header.base else { return nil }
        let named = Copy.absolutized(logBase, from: directory)
        base = Fields(
            block: Data(named.encoded()).base64EncodedString(), chain: header.previousChecksum, created: header.createdAt.iso8601,
            firstSeq: header.firstSeq, logID: header.logID)
    }

    /// The line, as `export` writes it (keys sorted, no spaces).
    var line: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    /// Whether `line` is meant as a base line: a JSON object whose only key is `base`
    /// (a record's line has `seq` and `kind`; anything else is decoded as one, and refused as one).
    static func isBaseLine(_ line: UnsafeRawBufferPointer) -> Bool {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { return false }
        return object.keys.count == 1 && object["base"] != nil
    }

    /// Decodes a base line and checks it whole: the block decodes with its
    /// checksum, starts the log at `firstSeq`, and its list is the history's.
    /// - Throws: ``Failure`` naming `where` (the input and line) and what is wrong.
    static func header(from line: UnsafeRawBufferPointer, where place: String) throws -> LogHeader {
        let fields: Fields
        do {
            fields = try JSONDecoder().decode(ExportedBase.self, from: Data(line)).base
        } catch let error as DecodingError {
            throw Failure("\(place): the base line is malformed: \(Import.describe(error))")
        }
        guard let created = EventTimestamp(iso8601: fields.created) else {
            throw Failure("\(place): the base line's 'created' (\(fields.created)) is not an ISO 8601 time")
        }
        guard let bytes = Data(base64Encoded: fields.block), fields.firstSeq > 1 else {
            throw Failure(
                fields.firstSeq > 1
                    ? "\(place): the base line's 'block' is not base64"
                    : "\(place): the base line's 'firstSeq' is \(fields.firstSeq); a base starts a log after seq 1")
        }
        let logBase: LogBase
        do {
            logBase = try LogBase.decode([UInt8](bytes), firstSeq: fields.firstSeq)
        } catch {
            let at = error.offset.map { " at byte \($0) of the block" } ?? ""
            throw Failure("\(place): the base line's block is damaged: \(error.reason)\(at)")
        }
        let header = LogHeader(logID: fields.logID, createdAt: created, base: logBase, previousChecksum: fields.chain)
        do {
            _ = try LabelList.origin(of: header, path: place)
        } catch {
            throw Failure("\(place): the base line's list does not decode: \(error.message)")
        }
        return header
    }
}
