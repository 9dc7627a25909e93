/// A run's export, whichever of the two it is: a HAR file is JSON (its first character is
/// `{`), anything else is read as a `--csv` export. `report` and `compare` read both.
public enum RunFile {
    public static func hops(_ text: String, name: String) throws(CSVRun.ReadError) -> [ReportHop] {
        let first = text.unicodeScalars.first { !$0.properties.isWhitespace && $0 != "\u{FEFF}" }
        return first == "{" ? try HARRun.hops(text, name: name) : try CSVRun.hops(text, name: name)
    }
}
