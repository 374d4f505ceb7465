import Foundation
import Testing

@testable import LabelProjection

/// The internal invariant checks (`LABELSTORE_INTERNAL_CHECKS`) are compiled
/// into this package's own test runs, and spaced as documented.
@Suite struct InternalChecksTests {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["LABELSTORE_INTERNAL_CHECKS"] != "0"))
    func theChecksAreCompiledIntoThisPackagesOwnTestRuns() {
        #expect(
            InternalChecks.isEnabled,
            "LabelProjection was built without LABELSTORE_INTERNAL_CHECKS: run `swift test` from the package's directory (or set LABELSTORE_INTERNAL_CHECKS=1)"
        )
    }

    @Test func everyMutationOfASmallListIsCheckedAndALargeOnesAreSpaced() {
        for count in [0, 1, 64, InternalChecks.fullCheckSize] {
            #expect((1...500).allSatisfy { InternalChecks.isDue(mutation: UInt64($0), count: count) }, "count \(count)")
        }
        let large = 1_000  // 1,000 / 128 + 1 = 8: every 8th mutation
        let due = (1...800).filter { InternalChecks.isDue(mutation: UInt64($0), count: large) }
        #expect(due.count == 100)
        #expect(due.allSatisfy { $0 % 8 == 0 })
    }
}
