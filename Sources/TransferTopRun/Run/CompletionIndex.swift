import Foundation

/// A completion journal read for look-ups: each key's last line, its record parsed only when
/// that key is looked up (a rerun looks up the URLs it lists, a one-URL run one key).
///
/// Reading a line is finding its key: a line in the writer's shape (`{"key":"` 64 hex digits
/// `"` … `}}`) is kept as its place in the journal's bytes. Parsing every line's name, size and
/// validators had cost about 8 K instructions a line, and a nightly list's journal holds
/// 10,000-15,000 lines between compactions. A line in any other shape (another writer's key
/// order, an edited or torn line) is parsed when read, as before, and a later line for a key
/// wins either way. A line in the writer's shape whose middle is damaged gives no record when
/// looked up: that file is downloaded again, the worst a damaged journal may do.
struct CompletionIndex {
    enum Entry {
        /// The bytes of the key's line in `text`.
        case line(Range<Int>)
        case record(CompletionStore.Record)
    }

    /// The journal's bytes.
    let text: [UInt8]
    private(set) var entries: [String: Entry] = [:]
    /// Lines read, records or not.
    private(set) var lines = 0

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }

    init() { text = [] }

    init(_ text: [UInt8]) {
        self.text = text
        // JSONDecoder, for lines of another shape, made only when one is met.
        var decoder: JSONDecoder?
        // A writer's line is about 190 bytes.
        entries.reserveCapacity(text.count / 160)
        text.withUnsafeBytes { all in
            guard let base = all.baseAddress else { return }
            var start = 0
            while start < all.count {
                // memchr: the slice's generic firstIndex took ten instructions a byte.
                let end = memchr(base + start, 0x0A, all.count - start).map { $0 - UnsafeMutableRawPointer(mutating: base) } ?? all.count
                defer { start = end + 1 }
                guard end > start else { continue }
                lines += 1
                let line = UnsafeRawBufferPointer(rebasing: all[start..<end])
                if let key = Self.writersKey(line) {
                    entries[key] = .line(start..<end)
                } else if let entry = CompletionLineReader.parse(line) {
                    entries[entry.key] = .record(entry.record)
                } else {
                    if decoder == nil { decoder = JSONDecoder() }
                    if let entry = try? decoder!.decode(CompletionStore.Line.self, from: Data(line)) {
                        entries[entry.key] = .record(entry.record)
                    }
                }
            }
        }
    }

    subscript(key: String) -> CompletionStore.Record? {
        switch entries[key] {
        case nil: return nil
        case .record(let record): return record
        case .line(let range):
            return text.withUnsafeBytes { CompletionLineReader.parse(UnsafeRawBufferPointer(rebasing: $0[range]))?.record }
        }
    }

    /// The journal with one line per key, each as it was read (a record read from another
    /// shape is written in the writer's).
    func compacted() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        for (key, entry) in entries {
            switch entry {
            case .line(let range): out.append(contentsOf: text[range])
            case .record(let record): CompletionStore.Line(key: key, record: record).append(to: &out)
            }
            out.append(0x0A)
        }
        return out
    }

    static let keyPrefix = Array(#"{"key":""#.utf8)
    static let keyLength = 64

    /// The key of a line in the writer's shape: after `{"key":"`, 64 lowercase hex digits
    /// (`ResumeStore.key`) and a quote; the line ends with `}}`.
    static func writersKey(_ line: UnsafeRawBufferPointer) -> String? {
        let keyEnd = keyPrefix.count + keyLength
        guard line.count > keyEnd + 2, line[keyEnd] == UInt8(ascii: "\""),
              line[line.count - 1] == UInt8(ascii: "}"), line[line.count - 2] == UInt8(ascii: "}"),
              memcmp(line.baseAddress!, keyPrefix, keyPrefix.count) == 0 else { return nil }
        let key = UnsafeRawBufferPointer(rebasing: line[keyPrefix.count..<keyEnd])
        for b in key where !((0x30...0x39).contains(b) || (0x61...0x66).contains(b)) { return nil }
        return String(decoding: key, as: UTF8.self)
    }
}
