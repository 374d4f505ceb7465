#if Postgres
import EventLog
import Foundation
import LabelStorePostgres
import LabelStoreTestSupport
import Testing

/// What `labelreplay` says about a server list: hints that name a command that
/// works on a server list (never `repair`), quoted for a shell; no secret in
/// `--json`; schema names that are reserved words.
@Suite(.serialized) struct CLIServerInputTests {
    typealias CLI = CLIOverServerTests

    /// The commands an error's hints name: `'labelreplay …'` quoted in the message.
    static func hintedCommands(_ text: String) -> [String] {
        text.matches(of: /'labelreplay ([^']*)'/).map { String($0.1) }
    }

    /// The arguments of a hinted command as a shell would split it (double quotes
    /// only); an issue for a character a shell would not take as it is, unquoted.
    static func words(_ command: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in command {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" && quoted {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if !quoted && "&;|<>()$`*?[".contains(character) {
                Issue.record("'\(character)' unquoted in the hinted command: \(command)", sourceLocation: sourceLocation)
                current.append(character)
            } else if character == " " && !quoted {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    @Test func aDamagedServerListSuggestsVerifyNotRepair() throws {
        let location = CLI.url()
        #expect(try CLI.cli(["init", location]).status == 0)
        for title in ["Amber", "Tile", "Ring"] { #expect(try CLI.cli(["add", location, title]).status == 0) }
        let list = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "list" }?.value)
        try PostgresTestServer.shared.psql(
            "UPDATE labelstore.records SET payload = substring(payload from 1 for 5) WHERE list = '\(list)' AND seq = 2")
        for arguments in [["show", location], ["log", location], ["add", location, "Grid"]] {
            let result = try CLI.cli(arguments)
            #expect(result.status == 1 && result.errors.contains("seq 2"), "\(arguments): \(result)")
            #expect(!result.errors.contains("repair"), "\(arguments): \(result)")
            let hinted = Self.hintedCommands(result.errors)
            #expect(!hinted.isEmpty, "\(arguments): \(result)")
            for command in hinted {
                let run = try CLI.cli(Self.words(command))
                // The hinted command runs on the list (verify reports the damage: exit 1, not a usage error).
                #expect(run.status != 64 && !run.errors.contains("works on log files only"), "\(command): \(run)")
                #expect(run.output.contains("seq 2") || run.errors.contains("seq 2"), "\(command): \(run)")
            }
        }
    }

    @Test func theInitHintForAMissingListIsACommandThatCreatesIt() throws {
        let location = CLI.url() + "&application_name=a%20b"
        let added = try CLI.cli(["add", location, "Amber"])
        #expect(added.status == 1 && added.errors.contains("there is no list"), "\(added)")
        let hinted = Self.hintedCommands(added.errors)
        #expect(hinted.count == 1 && hinted.first?.hasPrefix("init ") == true, "\(added)")
        let created = try CLI.cli(Self.words(try #require(hinted.first)))
        #expect(created.status == 0 && created.output.hasPrefix("created list"), "\(created)")
        #expect(try CLI.cli(["add", location, "Amber"]).status == 0)
    }

    @Test func anSSLPasswordNeverShowsInJSONOrErrors() throws {
        let location = CLI.url() + "&sslpassword=hunter2"
        for arguments in [["init", location, "--json"], ["add", location, "Amber", "--json"], ["show", location, "--json"]] {
            let result = try CLI.cli(arguments)
            #expect(result.status == 0, "\(arguments): \(result)")
            #expect(!result.output.contains("hunter2") && !result.errors.contains("hunter2"), "\(arguments): \(result)")
        }
        let missing = try CLI.cli(["show", CLI.url() + "&sslpassword=hunter2"])
        #expect(missing.status == 1 && !missing.errors.contains("hunter2"), "\(missing)")
    }

    @Test func reservedWordSchemasWorkThroughTheCLI() throws {
        for schema in ["user", "order"] {
            let location = CLI.url(schema: schema)
            let created = try CLI.cli(["init", location])
            #expect(created.status == 0, "\(schema): \(created)")
            #expect(try CLI.cli(["add", location, "Amber"]).status == 0)
            let shown = try CLI.cli(["show", location, "--json"])
            #expect(shown.status == 0 && shown.output.contains("\"Amber\""), "\(schema): \(shown)")
        }
    }
}
#endif
