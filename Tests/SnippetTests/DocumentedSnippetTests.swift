import Foundation
import Testing

/// Every ```swift block of README.md, docs/ and the DocC articles is one of
/// the compiled regions of this target (between `// snippet: NAME` and
/// `// end snippet`), and every region is a block of the docs: a snippet
/// cannot change in the docs without its compiled copy changing, nor the
/// other way round.
///
/// Lines are compared without their indentation and with runs of spaces
/// collapsed (the formatter aligns end-of-line comments differently from the
/// docs); blank lines at a block's ends are ignored. A block's leading
/// `import` lines are not part of the region: the file holding the region
/// must import those modules.
@Suite struct DocumentedSnippetTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Block {
        let origin: String
        let imports: Set<String>
        let lines: [String]
    }

    struct Region {
        let origin: String
        let name: String
        let fileImports: Set<String>
        let lines: [String]
    }

    static func normalized(_ line: String) -> String {
        line.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    static func trimmingBlankEnds(_ lines: [String]) -> [String] {
        var lines = lines
        while lines.first?.isEmpty == true { lines.removeFirst() }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }

    /// The documents whose Swift code blocks are compiled here.
    static func documents() throws -> [URL] {
        let manager = FileManager.default
        var documents = [root.appendingPathComponent("README.md")]
        let docs = root.appendingPathComponent("docs")
        documents += try manager.contentsOfDirectory(atPath: docs.path).filter { $0.hasSuffix(".md") }.sorted()
            .map { docs.appendingPathComponent($0) }
        for module in ["EventLog", "LabelProjection", "LabelStorePostgres"] {
            let catalog = root.appendingPathComponent("Sources/\(module)/\(module).docc")
            let files = try #require(manager.subpathsOfDirectory(atPath: catalog.path) as [String]?)
            documents += files.filter { $0.hasSuffix(".md") }.sorted().map { catalog.appendingPathComponent($0) }
        }
        return documents
    }

    static func blocks() throws -> [Block] {
        var blocks: [Block] = []
        for document in try documents() {
            let lines = try String(contentsOf: document, encoding: .utf8).components(separatedBy: "\n")
            let name = String(document.path.dropFirst(root.path.count + 1))
            var index = 0
            while index < lines.count {
                defer { index += 1 }
                guard normalized(lines[index]) == "```swift" else { continue }
                let start = index + 1
                var body: [String] = []
                index += 1
                while index < lines.count, normalized(lines[index]) != "```" {
                    body.append(normalized(lines[index]))
                    index += 1
                }
                var imports: Set<String> = []
                while let first = body.first, first.isEmpty || first.hasPrefix("import ") {
                    if !first.isEmpty { imports.insert(first) }
                    body.removeFirst()
                }
                blocks.append(Block(origin: "\(name):\(start)", imports: imports, lines: trimmingBlankEnds(body)))
            }
        }
        return blocks
    }

    static func regions() throws -> [Region] {
        let directory = root.appendingPathComponent("Tests/SnippetTests")
        var regions: [Region] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path).filter({ $0.hasSuffix(".swift") }).sorted() {
            let lines = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8).components(separatedBy: "\n")
                .map(normalized)
            let imports = Set(lines.filter { $0.hasPrefix("import ") })
            var index = 0
            while index < lines.count {
                defer { index += 1 }
                guard lines[index].hasPrefix("// snippet: ") else { continue }
                let name = String(lines[index].dropFirst("// snippet: ".count))
                let start = index + 1
                var body: [String] = []
                index += 1
                while index < lines.count, lines[index] != "// end snippet" {
                    body.append(lines[index])
                    index += 1
                }
                regions.append(
                    Region(origin: "Tests/SnippetTests/\(file):\(start)", name: name, fileImports: imports, lines: trimmingBlankEnds(body)))
            }
        }
        return regions
    }

    @Test func everyDocumentedSwiftBlockIsACompiledRegion() throws {
        let blocks = try Self.blocks()
        let regions = try Self.regions()
        #expect(blocks.count >= 15, "found only \(blocks.count) ```swift blocks")
        for block in blocks {
            let matches = regions.filter { $0.lines == block.lines }
            guard let region = matches.first else {
                // Name the region that shares most lines, and the first line that differs.
                let closest = regions.max { a, b in
                    Set(a.lines).intersection(block.lines).count < Set(b.lines).intersection(block.lines).count
                }
                let differing = closest.flatMap { region in
                    zip(block.lines + [""], region.lines + [""]).first { $0 != $1 }.map { "doc: \($0.0)\n  compiled: \($0.1)" }
                }
                Issue.record(
                    """
                    The ```swift block at \(block.origin) is not compiled: no `// snippet:` region of \
                    Tests/SnippetTests holds exactly its lines. Closest: \(closest.map { "\($0.name) at \($0.origin)" } ?? "none")
                      \(differing ?? "")
                    """)
                continue
            }
            let missingImports = block.imports.subtracting(region.fileImports)
            #expect(missingImports.isEmpty, "\(region.origin) must \(missingImports.sorted()) as the block at \(block.origin) does")
        }
    }

    @Test func everyCompiledRegionIsADocumentedBlock() throws {
        let blocks = try Self.blocks()
        let regions = try Self.regions()
        #expect(!regions.isEmpty)
        for region in regions where !blocks.contains(where: { $0.lines == region.lines }) {
            Issue.record(
                "The snippet region \(region.name) at \(region.origin) is no ```swift block of README.md, docs/ or the DocC articles")
        }
        let names = regions.map(\.name)
        #expect(Set(names).count == names.count, "snippet region names repeat: \(names)")
    }
}
