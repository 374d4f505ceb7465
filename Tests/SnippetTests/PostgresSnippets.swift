#if Postgres
import LabelProjection
import LabelStorePostgres

// The ```swift blocks about the PostgreSQL backend (README.md and
// docs/POSTGRES.md), compiled with the `Postgres` trait (CI's server run
// builds them); DocumentedSnippetTests matches their text either way.

/// README.md, "One history on many hosts".
private func readmePostgres() throws -> LabelStore {
    // snippet: readme-postgres
    let log = try PostgresEventLog(
        url: "postgres://app@db.example.com/labels?list=inbox",
        options: .init(createIfMissing: true))
    let store = try LabelStore(storage: log)
    store.startFollowing()  // other hosts' edits are folded and published here
    let id = try store.add("Groceries")
    try store.rename(id, to: "Shopping")  // lost the race? catches up, re-validates, retries
    // end snippet
    return store
}

/// docs/POSTGRES.md, "Using it".
private func postgresUsingIt() throws -> LabelStore {
    // snippet: postgres-using-it
    let log = try PostgresEventLog(
        url: "postgres://app@db.example.com/labels?list=inbox",
        options: .init(createIfMissing: true, pessimistic: false))
    let store = try LabelStore(storage: log, options: .init(conflictRetries: 16))
    store.startFollowing(wait: .seconds(1)) { error in
        print("following paused:", error.message)  // a lost server; it keeps trying
    }
    let id = try store.add("Groceries")
    try store.rename(id, to: "Shopping")  // loses a race? catches up, re-validates, retries
    // end snippet
    return store
}
#endif
