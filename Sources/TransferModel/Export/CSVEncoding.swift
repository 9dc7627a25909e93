/// RFC 4180 fields and records, plus the OWASP formula-injection guard (research B3; STYLE 14).
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

/// A strict RFC 4180 reader, used by tests to read our exports back.
public enum CSVParser {
    public enum Error: Swift.Error, Equatable {
        /// A `"` inside an unquoted field, or text after a closing quote.
        case strayQuote(record: Int)
        case unterminatedQuote(record: Int)
        case ragged(record: Int, fields: Int, expected: Int)
    }

    /// All records. Accepts CRLF or LF line ends; a final line break is optional.
    public static func parse(_ text: String) throws(Error) -> [[String]] {
        var records: [[String]] = []
        var fields: [String] = []
        var field = ""
        var inQuotes = false, wasQuoted = false, fieldStarted = false
        var scalars = Array(text.unicodeScalars)[...]
        func endField() { fields.append(field); field = ""; wasQuoted = false; fieldStarted = false }
        func endRecord() throws(Error) {
            endField()
            if let expected = records.first?.count, fields.count != expected {
                throw .ragged(record: records.count, fields: fields.count, expected: expected)
            }
            records.append(fields)
            fields = []
        }
        while let c = scalars.popFirst() {
            if inQuotes {
                if c == "\"" {
                    if scalars.first == "\"" { scalars.removeFirst(); field.unicodeScalars.append("\"") }
                    else { inQuotes = false }
                } else { field.unicodeScalars.append(c) }
                continue
            }
            switch c {
            case ",": endField()
            case "\r" where scalars.first == "\n": scalars.removeFirst(); try endRecord()
            case "\n": try endRecord()
            case "\"":
                if fieldStarted { throw .strayQuote(record: records.count) }
                inQuotes = true; wasQuoted = true; fieldStarted = true
            default:
                if wasQuoted { throw .strayQuote(record: records.count) }
                field.unicodeScalars.append(c); fieldStarted = true
            }
        }
        if inQuotes { throw .unterminatedQuote(record: records.count) }
        if fieldStarted || !fields.isEmpty { try endRecord() }
        return records
    }
}
