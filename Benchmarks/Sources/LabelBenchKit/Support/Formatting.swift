extension Int {
    /// The number with thousands separators, e.g. `1,000,000`.
    var grouped: String {
        let digits = String(magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return self < 0 ? "-" + out : out
    }
}
