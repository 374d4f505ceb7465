/// The result of scanning a file: the report plus a sparse seq → offset index.
struct ScanResult {
    var report: RecoveryReport
    var index: SparseIndex
}
