/// "Did you mean …?": the known word closest to a mistyped one, by edit
/// distance (insertions, deletions, substitutions and swaps of two neighbours
/// each count one), ignoring case and leading dashes. `lgo`, `hlep`, `Show`,
/// `--lable`, `--qeury` and `--hepl` all find their word; a word that is a
/// prefix of exactly one known word (`sho`, `-j`) finds it too.
enum Suggestion {
    /// The candidate closest to `word`, if one is close enough: distance 1 for
    /// words of up to five letters, 2 for longer ones; else the one candidate
    /// `word` is a prefix of.
    static func closest(to word: String, among candidates: [String]) -> String? {
        let typed = bare(word)
        guard !typed.isEmpty else { return nil }
        let allowed = typed.count <= 2 ? 0 : typed.count <= 5 ? 1 : 2
        let scored = candidates.map { ($0, distance(typed, bare($0))) }
        if let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= allowed { return best.0 }
        let prefixed = candidates.filter { bare($0).starts(with: typed) }
        return prefixed.count == 1 ? prefixed[0] : nil
    }

    /// The word lowercased, without leading dashes.
    private static func bare(_ word: String) -> [Character] { Array(word.lowercased().drop { $0 == "-" }) }

    /// The optimal-string-alignment distance between `a` and `b`.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}
