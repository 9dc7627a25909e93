import CSV

/// Reads a CSV export back with CSV.swift (an RFC 4180 reader we did not write), so a test
/// of our writer is not checked by our own reading of the format.
public enum CSVRead {
    public struct Ragged: Error, CustomStringConvertible {
        public var record: Int, fields: Int, expected: Int
        public var description: String { "record \(record) has \(fields) fields, the header \(expected)" }
    }

    /// Every record, the header first; every record must have the header's number of fields.
    public static func records(_ text: String) throws -> [[String]] {
        let reader = try CSVReader(string: text, hasHeaderRow: false)
        var out: [[String]] = []
        while let row = reader.next() {
            if let expected = out.first?.count, row.count != expected {
                throw Ragged(record: out.count, fields: row.count, expected: expected)
            }
            out.append(row)
        }
        if let error = reader.error { throw error }
        return out
    }
}
