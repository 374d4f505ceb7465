import EventLog

extension String {
    /// Whether `a` and `b` are the same text byte for byte: the same UTF-8
    /// code units, with no Unicode normalization (`nil` equals only `nil`).
    ///
    /// This is the store's one notion of "the same title": the log records a
    /// title's exact bytes and the fold compares bytes, so `"\u{622}"` and
    /// `"\u{627}\u{653}"` — equal as `String`s, because `==` is canonical
    /// equivalence — are different titles. Renaming one to the other is a
    /// rename: it moves the label's version, and title, label, view and
    /// ``ObservableLabels`` subscribers are told. ``Label`` equality, command
    /// validation, ``LabelChange/title`` and dispatch all use this.
    ///
    /// Searching is the exception, on purpose: a ``ViewQuery`` matches
    /// canonically equivalent titles and texts alike (see ``ViewQuery/matches(title:)``).
    public static func sameBytes(_ a: String?, _ b: String?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): TitleArena.sameBytes(a, b)
        default: false
        }
    }
}
