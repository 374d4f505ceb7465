import LabelBenchKit
import Foundation

exit(LabelBench.main(arguments: Array(CommandLine.arguments.dropFirst())))
