extension SystemFile {
    /// The whole text of the small file at `path` (a cache's record beside a
    /// log), or `nil` when it is missing, empty, not smaller than `limit`
    /// bytes, or cannot be read. Never throws: a record that cannot be read
    /// is a record that is not there.
    package static func smallText(at path: String, limit: Int) -> String? {
        guard let file = try? open(path, .readOnly) else { return nil }
        defer { file.close() }
        guard let size = try? file.size(), size > 0, size < limit else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        let read = bytes.withUnsafeMutableBytes { (try? file.read(at: 0, into: $0)) ?? 0 }
        return read == bytes.count ? String(decoding: bytes, as: UTF8.self) : nil
    }
}
