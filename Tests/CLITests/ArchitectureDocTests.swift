import Foundation
import Testing

/// docs/ARCHITECTURE.md is the map of the tree: it must name every folder and
/// every source file of the libraries, so a file added, moved or renamed
/// without updating the map fails here.
@Suite struct ArchitectureDocTests {
    /// The repository's root, found from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test(arguments: ["EventLog", "LabelProjection", "LabelStorePostgres"])
    func architectureDocNamesEveryFolderAndSourceFile(module: String) throws {
        let doc = try String(contentsOf: Self.root.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        let moduleDirectory = Self.root.appendingPathComponent("Sources/\(module)")
        let entries = try #require(FileManager.default.subpathsOfDirectory(atPath: moduleDirectory.path) as [String]?)
        #expect(entries.count > 10, "Sources/\(module) should hold the module's files")
        var missing: [String] = []
        for entry in entries.sorted() {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: moduleDirectory.appendingPathComponent(entry).path, isDirectory: &isDirectory)
            let name = (entry as NSString).lastPathComponent
            if isDirectory.boolValue {
                if !doc.contains("`\(name)/`") { missing.append("Sources/\(module)/\(entry)/") }
            } else if name.hasSuffix(".swift"), !doc.contains("`\(name)`") {
                missing.append("Sources/\(module)/\(entry)")
            }
        }
        #expect(missing.isEmpty, "docs/ARCHITECTURE.md does not name: \(missing.joined(separator: ", "))")
    }
}
