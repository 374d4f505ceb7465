import Foundation
import LabelBenchKit

exit(LabelBench.main(arguments: Array(CommandLine.arguments.dropFirst())))
