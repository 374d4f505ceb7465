/// Internal invariant checks after mutations, as swift-collections'
/// `COLLECTIONS_INTERNAL_CHECKS`.
///
/// With the `LABELSTORE_INTERNAL_CHECKS` compilation condition (Package.swift
/// sets it for debug builds of this package built from its own directory, so
/// its `swift test` runs with it; `LABELSTORE_INTERNAL_CHECKS=1` or `=0` in
/// the environment of the build forces it on or off), every fold, order edit
/// and rollback of a ``LabelList`` ends by checking the storage's invariants
/// (`_checkInvariants()`), and traps on the first broken one. Without it the
/// checks compile to nothing.
///
/// A full check costs O(n) in the number of slots. It runs after every
/// mutation of a structure of up to ``fullCheckSize`` elements, and after
/// every `((n - 1) / fullCheckSize + 1)`-th mutation of a larger one, so checks
/// cost O(``fullCheckSize``) per mutation amortized and tests of large
/// lists stay linear.
enum InternalChecks {
    /// Whether the checks are compiled in.
    #if LABELSTORE_INTERNAL_CHECKS
    static let isEnabled = true
    #else
    static let isEnabled = false
    #endif

    /// Up to this many elements, every mutation is followed by a full check.
    static let fullCheckSize = 128

    /// Whether the mutation numbered `mutation` of a structure holding
    /// `count` elements is followed by a full check.
    @inline(__always)
    static func isDue(mutation: UInt64, count: Int) -> Bool {
        mutation % UInt64(max(count - 1, 0) / fullCheckSize + 1) == 0
    }
}
