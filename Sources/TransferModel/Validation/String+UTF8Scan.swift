extension String {
    /// Whether any of the string's UTF-8 bytes satisfies `predicate`, scanned as one buffer.
    /// `utf8.contains(where:)` walks the view's indices instead, some fifteen instructions a
    /// byte: this runs on every URL, name and line of a long list (line mode's escaping, the
    /// redaction's first look, the journal's JSON).
    @inlinable
    package func utf8Contains(where predicate: (UInt8) -> Bool) -> Bool {
        if let found = utf8.withContiguousStorageIfAvailable({ $0.contains(where: predicate) }) { return found }
        return utf8.contains(where: predicate)
    }
}
