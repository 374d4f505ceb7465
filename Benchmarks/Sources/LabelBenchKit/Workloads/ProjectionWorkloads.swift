// HOOK(LabelProjection): projection workloads live in this file.
//
// When the `LabelProjection` module lands:
// 1. In Benchmarks/Package.swift, add `.product(name: "LabelProjection", package: "LabelStore")`
//    to the dependencies of the `LabelBenchKit` target.
// 2. Here, `import LabelProjection` and add a consumer that folds each record:
//
//        struct ProjectionFoldConsumer: ReplayConsumer {
//            private var list = LabelList()
//            init() {}
//            static var name: String { "fold" }
//            mutating func consume(_ record: EventRecord) throws { try list.apply(record) }
//            var digest: String { "\(list.count) labels, \(list.enabledCount) enabled, last seq \(list.lastSeq)" }
//        }
//
// 3. Return the workloads below, e.g.
//        [ReplayWorkload<ProjectionFoldConsumer>(eventCount: settings.size(full: 1_000_000, quick: 200_000),
//                                                settings: settings)]
//    Both sides then fold the same records into a `LabelList` (the stream of
//    `EventStream` is a consistent history, so the fold accepts it), and the
//    digests check that both projections agree.
//    Store-level workloads (LabelStore commands, views) get their own class
//    conforming to `Workload`, in their own file, listed here too.

extension WorkloadCatalog {
    /// The workloads on the projection (none until `LabelProjection` is ready).
    static func projectionWorkloads(for settings: BenchSettings) -> [any Workload] {
        []
    }
}
