import Foundation

/// A completion journal read for look-ups: each key's last line, its record parsed only when
/// that key is looked up (a rerun looks up the URLs it lists, a one-URL run one key).
///
/// Reading a line is finding its key: a line that starts as the writer's do (`{"key":"`, 64 hex
/// digits, `"`) and ends with `}}` is kept as its place in the journal's bytes. Parsing every
/// line's name, size and validators had cost about 8 K instructions a line, and a nightly list's
/// journal holds 10,000-15,000 lines between compactions. Any other line (the key not first, a
/// torn line) is parsed when read, as before. A kept line is parsed when looked up, by the
/// writer's scanner or else `JSONDecoder` (another writer's field order, spaces, escapes), so
/// a later line for a key wins either way. Only a kept line that is not JSON at all (an edit)
/// gives no record when looked up: that file is downloaded again, the worst a damaged journal
/// may do.
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
                } else if let entry = Self.parse(line, &decoder) {
                    entries[entry.key] = .record(entry.record)
                }
            }
        }
    }

    subscript(key: String) -> CompletionStore.Record? {
        switch entries[key] {
        case nil: return nil
        case .record(let record): return record
        case .line(let range):
            // The key was read from these bytes; JSON in another writer's shape is checked.
            var decoder: JSONDecoder?
            guard let line = text.withUnsafeBytes({ Self.parse(UnsafeRawBufferPointer(rebasing: $0[range]), &decoder) }),
                  line.key == key else { return nil }
            return line.record
        }
    }

    /// A line in any shape: the writer's scanner, else `decoder`, made when first needed.
    private static func parse(_ line: UnsafeRawBufferPointer, _ decoder: inout JSONDecoder?) -> CompletionStore.Line? {
        if let entry = CompletionLineReader.parse(line) { return entry }
        if decoder == nil { decoder = JSONDecoder() }
        return try? decoder!.decode(CompletionStore.Line.self, from: Data(line))
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
    /// (`ResumeStore.key`) and a quote; the line ends with `}}` and holds no second `{"key":"`
    /// (a torn write with the next line glued to it ends like a whole line).
    static func writersKey(_ line: UnsafeRawBufferPointer) -> String? {
        let keyEnd = keyPrefix.count + keyLength
        guard line.count > keyEnd + 2, line[keyEnd] == UInt8(ascii: "\""),
              line[line.count - 1] == UInt8(ascii: "}"), line[line.count - 2] == UInt8(ascii: "}"),
              memcmp(line.baseAddress!, keyPrefix, keyPrefix.count) == 0,
              !holdsKeyPrefix(UnsafeRawBufferPointer(rebasing: line[keyEnd...])) else { return nil }
        let key = UnsafeRawBufferPointer(rebasing: line[keyPrefix.count..<keyEnd])
        for b in key where !((0x30...0x39).contains(b) || (0x61...0x66).contains(b)) { return nil }
        return String(decoding: key, as: UTF8.self)
    }

    /// Whether `bytes` hold `{"key":"` anywhere (each `{` found by memchr).
    static func holdsKeyPrefix(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        var at = 0
        while bytes.count - at >= keyPrefix.count, let brace = memchr(base + at, 0x7B, bytes.count - at) {
            at = UnsafeRawPointer(brace) - base
            if bytes.count - at >= keyPrefix.count, memcmp(base + at, keyPrefix, keyPrefix.count) == 0 { return true }
            at += 1
        }
        return false
    }
}
