import Foundation

// labelreplay: replay, inspect and edit a label log. See docs/CLI.md.
exit(Tool.run(Array(CommandLine.arguments.dropFirst())))
