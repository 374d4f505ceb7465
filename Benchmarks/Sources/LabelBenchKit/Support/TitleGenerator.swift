/// Makes realistic label titles: 8–40 characters of mixed words, some of
/// them non-ASCII (accents, Greek, Cyrillic, CJK, an emoji), as users type them.
struct TitleGenerator {
    /// Words as people put them in label titles; about one in six is not ASCII.
    static let words: [String] = [
        "Work", "Home", "Urgent", "Later", "Someday", "Waiting", "Project", "Review", "Draft",
        "Groceries", "Travel", "Finance", "Taxes", "Invoices", "Receipts", "Health", "Dentist",
        "Reading", "Books", "Movies", "Music", "Podcasts", "Ideas", "Notes", "Meeting", "Calls",
        "Follow-up", "Team", "Design", "Backend", "Frontend", "Release", "Bugs", "Q3", "Q4",
        "2026", "Budget", "Garden", "Kids", "School", "Sport", "Running", "Recipes", "Shopping",
        "Gifts", "Birthday", "Archive", "Personal", "Client", "Admin", "Research", "Errands",
        "Büro", "Café", "Straße", "Résumé", "naïve", "Niño", "São Paulo", "Zürich",
        "Ελλάδα", "Москва", "東京", "日本語", "Größe", "Crème brûlée", "🏷️ Tags", "Øresund"
    ]

    /// The title length range, in characters.
    static let lengthRange = 8...40

    private static let wordLengths: [Int] = words.map(\.count)

    /// A new title drawn from `rng`.
    static func title(using rng: inout SeededGenerator) -> String {
        let target = rng.between(lengthRange)
        var title = ""
        var length = 0
        while length < target {
            let k = rng.below(words.count)
            if length > 0 {
                title.append(" ")
                length += 1
            }
            title.append(words[k])
            length += wordLengths[k]
        }
        if length > lengthRange.upperBound {
            title = String(title.prefix(lengthRange.upperBound))
            while title.last == " " { title.removeLast() }
        }
        return title
    }
}
