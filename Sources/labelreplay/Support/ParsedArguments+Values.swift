extension ParsedArguments {
    /// A required positional (parsing already checked it is there).
    func positional(_ name: String) -> String { positionals[name] ?? "" }

    /// An optional positional, or `nil`.
    func optionalPositional(_ name: String) -> String? { positionals[name] }

    /// Whether a flag was given.
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The value of an option (given at most once, unless it repeats), or `nil`.
    func option(_ name: String) -> String? { options[name]?.last }

    /// Every value of a repeating option, in order.
    func values(_ name: String) -> [String] { options[name] ?? [] }

    /// A whole number ≥ 0 from an option or positional (`nil` when absent).
    func number(_ name: String, what: String = "a whole number ≥ 0") throws(UsageError) -> UInt64? {
        guard let text = positionals[name] ?? option(name) else { return nil }
        guard let value = UInt64(text) else { throw invalid(text, for: name, expected: what) }
        return value
    }

    /// A seq (whole number ≥ 0) from an option or positional.
    func seq(_ name: String) throws(UsageError) -> UInt64? {
        try number(name, what: "a seq (a whole number ≥ 0)")
    }

    /// A list position (whole number in 0...2³¹−1) from an option or positional.
    func position(_ name: String) throws(UsageError) -> Int? {
        guard let value = try number(name, what: "a position (a whole number ≥ 0)") else { return nil }
        guard value <= UInt64(Int32.max) else {
            throw invalid(String(value), for: name, expected: "a position no larger than \(Int32.max)")
        }
        return Int(value)
    }

    /// The error for a value that does not parse.
    func invalid(_ text: String, for name: String, expected: String) -> UsageError {
        let display = spec.argument(named: name)?.display ?? name
        return UsageError("the value '\(text)' is invalid for '\(display)': expected \(expected)")
    }

    /// Fails when more than one of `names` was given.
    func exclusive(_ names: String...) throws(UsageError) {
        let given = names.filter { options[$0] != nil || flags.contains($0) }
        if given.count > 1 {
            throw UsageError("'--\(given[0])' and '--\(given[1])' cannot be used together")
        }
    }

    /// The log positional, refused when empty (`show ''`): a path as given, or a
    /// server URL's display text (without its password; see ``LogLocation``).
    /// Without PostgreSQL support a URL is a ``Failure`` saying how to build with it.
    func logPath(_ name: String = "log") throws -> String {
        let path = positional(name)
        if path.isEmpty { throw UsageError("the value '' is invalid for '<\(name)>': expected the path of a label log") }
        return try LogLocation.note(path)
    }

    /// The log positional of a command that works on log files only (`repair`,
    /// `snapshot`, `index`): a server URL is a usage error saying `why`.
    func filePath(_ name: String = "log", why: String) throws -> String {
        let path = positional(name)
        if LogLocation.isServer(path) {
            throw UsageError(
                "'\(LogLocation.display(path))' is a server list, but '\(spec.name)' works on log files only: \(why)")
        }
        return try logPath(name)
    }
}
