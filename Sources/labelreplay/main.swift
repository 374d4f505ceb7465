import Foundation

// labelreplay: replay, inspect and edit a label log. See docs/CLI.md.
Platform.returnLargeBlocksToTheSystem()
exit(Tool.run(Array(CommandLine.arguments.dropFirst())))
