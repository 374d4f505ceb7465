// Checks a module's documentation, as scripts/build-docs builds it:
//
//   check-docs MODULE SYMBOL_GRAPH_DIR DOCC_ARCHIVE
//
// - Every public symbol declared in the module's sources has a doc comment of
//   its own (a member that only inherits a protocol's documentation, e.g. a
//   `description` without `///`, counts as undocumented; what the compiler
//   synthesizes, e.g. an enum's `init(rawValue:)`, is skipped).
// - Every public symbol declared in the module's sources is curated: linked
//   from a `## Topics` section of a page of the catalog (the root page, an
//   article, or a documentation extension in `Extensions/`), not only in the
//   groups DocC generates ("Instance Properties", …).
//
// It prints each symbol that fails, with the link to add, and exits 1 if any.
// Only Foundation: it runs wherever the Swift toolchain does.
import Foundation

struct Symbol {
    let usr: String
    let path: String
    let kind: String
    let file: String?
    let documented: Bool
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("check-docs: \(message)\n".utf8))
    exit(2)
}

func json(at url: URL) -> [String: Any] {
    guard let data = try? Data(contentsOf: url),
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { fail("cannot read JSON at \(url.path)") }
    return object
}

let arguments = CommandLine.arguments
guard arguments.count == 4 else { fail("usage: check-docs MODULE SYMBOL_GRAPH_DIR DOCC_ARCHIVE") }
let module = arguments[1]
let graphDirectory = URL(fileURLWithPath: arguments[2])
let archive = URL(fileURLWithPath: arguments[3])

// The module's symbols: its own graph and the graphs of its extensions to other modules.
let graphFiles = ((try? FileManager.default.contentsOfDirectory(atPath: graphDirectory.path)) ?? [])
    .filter { $0 == "\(module).symbols.json" || ($0.hasPrefix("\(module)@") && $0.hasSuffix(".symbols.json")) }
    .sorted()
guard graphFiles.contains("\(module).symbols.json") else { fail("no \(module).symbols.json in \(graphDirectory.path)") }

var symbols: [Symbol] = []
for file in graphFiles {
    let graph = json(at: graphDirectory.appendingPathComponent(file))
    for case let symbol as [String: Any] in graph["symbols"] as? [Any] ?? [] {
        let kind = (symbol["kind"] as? [String: Any])?["identifier"] as? String ?? "?"
        let access = symbol["accessLevel"] as? String ?? ""
        // Extension blocks are not symbols of their own; synthesized members have no location.
        guard kind != "swift.extension", access == "public" || access == "open",
            let location = symbol["location"] as? [String: Any]
        else { continue }
        let usr = (symbol["identifier"] as? [String: Any])?["precise"] as? String ?? ""
        let path = (symbol["pathComponents"] as? [String] ?? []).joined(separator: "/")
        let comment = symbol["docComment"] as? [String: Any]
        let lines = (comment?["lines"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
        let ownComment = comment != nil && (comment?["module"] as? String ?? module) == module
        let documented = ownComment && lines.contains { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        let uri = location["uri"] as? String
        let sourceFile = uri.flatMap { URL(string: $0)?.path }.map { path -> String in
            guard let range = path.range(of: "/Sources/") else { return path }
            return "Sources/" + path[range.upperBound...]
        }
        symbols.append(Symbol(usr: usr, path: path, kind: kind, file: sourceFile, documented: documented))
    }
}

// The pages DocC made: which symbol each is, and what its hand-written Topics link to.
var pageOfSymbol: [String: String] = [:]
var curated: Set<String> = []
let dataDirectory = archive.appendingPathComponent("data/documentation")
guard let walker = FileManager.default.enumerator(at: dataDirectory, includingPropertiesForKeys: nil) else {
    fail("no pages in \(dataDirectory.path)")
}
for case let url as URL in walker where url.pathExtension == "json" {
    let page = json(at: url)
    let identifier = (page["identifier"] as? [String: Any])?["url"] as? String ?? ""
    if let usr = (page["metadata"] as? [String: Any])?["externalID"] as? String { pageOfSymbol[usr] = identifier }
    for case let section as [String: Any] in page["topicSections"] as? [Any] ?? [] where (section["generated"] as? Bool) != true {
        curated.formUnion(section["identifiers"] as? [String] ?? [])
    }
}

let symbolPaths = Dictionary(grouping: symbols, by: \.path)
func link(_ symbol: Symbol) -> String {
    // Overloads share a path; DocC then needs a disambiguation, which its warning for an ambiguous link names.
    let overloaded = (symbolPaths[symbol.path]?.count ?? 0) > 1 ? " (overloaded: add the disambiguation DocC suggests)" : ""
    return "``\(symbol.path)``\(overloaded)"
}
func home(_ symbol: Symbol) -> String {
    let components = symbol.path.split(separator: "/")
    return components.count == 1
        ? "\(module).docc/\(module).md" : "\(module).docc/Extensions/\(components.dropLast().joined(separator: ".")).md"
}

let undocumented = symbols.filter { !$0.documented }
let uncurated = symbols.filter { symbol in
    guard let page = pageOfSymbol[symbol.usr] else { return true }
    return !curated.contains(page)
}
for symbol in undocumented.sorted(by: { $0.path < $1.path }) {
    print("undocumented: \(module) \(symbol.path) (\(symbol.kind)) in \(symbol.file ?? "?"): write its /// comment")
}
for symbol in uncurated.sorted(by: { $0.path < $1.path }) {
    print("uncurated: \(module) \(symbol.path) (\(symbol.kind)): add - \(link(symbol)) under ## Topics of \(home(symbol))")
}
print(
    "check-docs: \(module): \(symbols.count) public symbols, \(undocumented.count) undocumented, \(uncurated.count) uncurated")
exit(undocumented.isEmpty && uncurated.isEmpty ? 0 : 1)
