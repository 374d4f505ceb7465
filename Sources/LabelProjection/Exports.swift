/// `import LabelProjection` is the one import an app needs: it re-exports
/// `EventLog`, so ids (`LabelID`), events and records (`LabelEvent`,
/// `EventRecord`, `LogEntry`), the log's options and errors
/// (`LogWriter.Options`, `Durability`, `EventLogError`) and the storages
/// (`LogWriter`, `InMemoryEventLog`) are named without importing `EventLog`.
/// `EventLog` stays usable on its own, for tools that need only the log.
@_exported import EventLog
