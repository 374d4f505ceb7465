import Foundation

// labelreplay: replay, inspect and edit a label log. See docs/CLI.md.
let arguments = Array(CommandLine.arguments.dropFirst())
Platform.useLargeBlocks(arguments.first.flatMap(Tool.command(named:))?.largeBlocks ?? .returnedToTheSystem)
exit(Tool.run(arguments))
