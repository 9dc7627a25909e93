/// RFC 4180 fields and records, plus the OWASP formula-injection guard.
public enum CSVEncoding {
    /// A field, quoted only when it must be (`,`, `"`, CR or LF inside).
    public static func field(_ value: String) -> String {
        let needsQuotes = value.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard needsQuotes else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A text cell that came from outside (URL, error text, server-chosen strings): a leading
    /// `'` stops spreadsheets from reading it as a formula (OWASP ASVS 1.2.10). Numbers we
    /// format ourselves never go through this.
    public static func guardFormula(_ value: String) -> String {
        guard let first = value.unicodeScalars.first else { return value }
        switch first {
        case "=", "+", "-", "@", "\t", "\r", "\0": return "'" + value
        default: return value
        }
    }

    /// One record: fields joined by commas, ended by CRLF.
    public static func record(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",") + "\r\n"
    }
}
