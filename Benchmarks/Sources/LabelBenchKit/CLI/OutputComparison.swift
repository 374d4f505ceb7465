import Foundation

/// Checks that two commands printed the same bytes (an indexed command and its scan peer).
enum OutputComparison {
    /// Throws unless the files at `path` and `expectedPath` hold the same bytes;
    /// the error names `what`, both sizes and the first differing byte offset.
    /// Returns the byte count.
    @discardableResult
    static func requireEqual(_ path: String, _ expectedPath: String, what: String) throws -> Int {
        let a = try Data(contentsOf: URL(fileURLWithPath: path))
        let b = try Data(contentsOf: URL(fileURLWithPath: expectedPath))
        guard a != b else { return a.count }
        let common = zip(a, b).prefix(while: { $0 == $1 }).count
        throw BenchError(
            "\(what): the outputs differ (\(a.count.grouped) bytes in \(path), \(b.count.grouped) in \(expectedPath); first difference at byte \(common.grouped))"
        )
    }
}
