import EventLog
import Testing

@testable import labelreplay

/// Every hint names a command that works on the location it is about (issue
/// 26, item 10): `repair` cuts files, so a damaged server list is not sent there.
@Suite struct ErrorHintTests {
    @Test func aDamagedServerListIsNotSentToRepair() {
        let damaged = EventLogError(.corruptRecord, "the record at seq 4 is damaged")
        let server = ErrorText.hint(for: damaged, path: "postgres://db/labels?list=inbox")
        #expect(!server.contains("repair") && server.contains("verify") && server.contains("postgres://db/labels?list=inbox"), "\(server)")
        let file = ErrorText.hint(for: damaged, path: "labels.labellog")
        #expect(file.contains("repair labels.labellog"), "\(file)")
    }
}
