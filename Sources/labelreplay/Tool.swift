import EventLog

/// One subcommand: its spec (the source of its help) and what it does.
protocol Command {
    /// Name, help text and arguments.
    static var spec: CommandSpec { get }
    /// Runs with parsed arguments and returns the exit status. Throws
    /// ``UsageError`` (exit 64) or anything else (exit 1, `error: …`).
    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32
    /// What the allocator does with the large blocks the command frees
    /// (default: ``Platform/LargeBlockUse/returnedToTheSystem``).
    static var largeBlocks: Platform.LargeBlockUse { get }
}

extension Command {
    static var largeBlocks: Platform.LargeBlockUse { .returnedToTheSystem }
}

/// The `labelreplay` tool: dispatch to subcommands, help, version, exit statuses.
enum Tool {
    /// The executable's name, used in usage lines and hints.
    static let name = "labelreplay"
    /// The tool's version (`--version`).
    static let version = "1.0.0"

    /// Every subcommand, in the order `--help` lists them.
    static var commands: [any Command.Type] {
        [
            Demo.self, Init.self, Show.self, Log.self, Diff.self, Trace.self, Timeline.self, Verify.self, Repair.self, Stats.self,
            Head.self, Prove.self, CheckProof.self,
            Export.self, Import.self, Copy.self, Sync.self, Status.self, Add.self, Rename.self, Toggle.self, Enable.self, Disable.self,
            Remove.self, Move.self,
            Reverse.self, Revert.self,
            Snapshot.self, Index.self, Archive.self, Upgrade.self, Help.self, Complete.self
        ]
    }

    /// The options of the tool itself (before any command).
    static let rootOptions = ["--help", "--version", "--generate-completion-script"]

    /// The subcommand called `name`, if any.
    static func command(named name: String) -> (any Command.Type)? {
        commands.first { $0.spec.name == name }
    }

    /// The log path the command line names (for errors that do not name it), if the command takes one.
    private static func logArgument(_ arguments: [String], spec: CommandSpec) -> String? {
        guard spec.arguments.contains(where: { $0.name == "log" && $0.isPositional }) else { return nil }
        return (try? ParsedArguments.parse(Array(arguments.dropFirst()), spec: spec).optionalPositional("log")).map(LogLocation.display)
    }

    /// Runs the tool on `arguments` (without the executable's name) and returns the exit status.
    static func run(_ arguments: [String], console: Console = Console()) -> Int32 {
        defer {
            ServerStorage.closeAll()
            console.flush()
        }
        guard let first = arguments.first else {
            console.line(HelpText.root())
            return ExitStatus.success
        }
        switch first {
        case "-h", "--help":
            console.line(HelpText.root())
            return ExitStatus.success
        case "--version":
            console.line("\(name) \(version) (label log format \(LogFormat.currentVersion))")
            return ExitStatus.success
        case let option where option == "--generate-completion-script" || option.hasPrefix("--generate-completion-script="):
            let shell = option.contains("=") ? String(option.split(separator: "=", maxSplits: 1)[1]) : arguments.dropFirst().first
            guard let shell, let script = CompletionScript.script(for: shell), arguments.count <= (option.contains("=") ? 1 : 2) else {
                console.error(
                    "'--generate-completion-script' expects one of \(CompletionScript.shells.joined(separator: ", "))"
                        + (shell.map { ", not '\($0)'" } ?? ""))
                console.errorLine("usage: \(name) --generate-completion-script <shell>")
                return ExitStatus.usage
            }
            console.line(String(script.dropLast()))  // the script ends with its own newline
            return ExitStatus.success
        default:
            break
        }
        guard let command = command(named: first) else {
            let what = first.hasPrefix("-") ? "unknown option '\(first)'" : "unknown command '\(first)'"
            let known = first.hasPrefix("-") ? rootOptions : commands.filter { !$0.spec.hidden }.map { $0.spec.name }
            let close = Suggestion.closest(to: first, among: known)
            console.error(what + (close.map { " (did you mean '\($0)'?)" } ?? ""))
            console.errorLine("usage: \(name) <command> [<arguments>]")
            console.errorLine("see '\(name) --help' for the commands")
            return ExitStatus.usage
        }
        let spec = command.spec
        do {
            let parsed = try ParsedArguments.parse(Array(arguments.dropFirst()), spec: spec)
            if parsed.helpRequested {
                console.line(HelpText.render(spec))
                return ExitStatus.success
            }
            let status = try command.run(parsed, console: console)
            console.flush()
            if console.outputFailed && !console.readerQuit {
                console.error("cannot write to standard output")
                return ExitStatus.failure
            }
            return status
        } catch let error as UsageError {
            console.error(error.message)
            console.errorLine("usage: " + spec.usage)
            console.errorLine("see '\(name) \(spec.name) --help' for more information")
            return ExitStatus.usage
        } catch let interrupted as Interrupted {
            console.error("interrupted")
            return interrupted.status
        } catch let failure as Failure {
            console.error(failure.message, details: failure.details)
            return ExitStatus.failure
        } catch {
            console.error(ErrorText.describe(error, path: logArgument(arguments, spec: spec)))
            return ExitStatus.failure
        }
    }
}
