import Foundation

/// Reads the completion journal's lines in the one shape `CompletionStore.Line.json` writes:
/// `{"key":"…","record":{"name":"…","size":N[,"entityTag":"…"][,"lastModified":"…"]}}`.
///
/// `JSONDecoder` spent about 20 µs a line, and a rerun of a 5,000-URL list looks up every URL
/// (`CompletionIndex` parses a line when its key is looked up). A line in any other shape
/// (another key order, an escape the writer never makes, a torn or edited line) gets `nil`
/// here and is left to `JSONDecoder`, so the journal's format stays plain JSON lines.
enum CompletionLineReader {
    static func parse(_ line: UnsafeRawBufferPointer) -> CompletionStore.Line? {
        var cursor = Cursor(bytes: line)
        guard cursor.literal(#"{"key":"#), let key = cursor.string(),
              cursor.literal(#","record":{"name":"#), let name = cursor.string(),
              cursor.literal(#","size":"#), let size = cursor.integer() else { return nil }
        var record = CompletionStore.Record(name: name, size: size, entityTag: nil, lastModified: nil)
        if cursor.literal(#","entityTag":"#) {
            guard let tag = cursor.string() else { return nil }
            record.entityTag = tag
        }
        if cursor.literal(#","lastModified":"#) {
            guard let date = cursor.string() else { return nil }
            record.lastModified = date
        }
        guard cursor.literal("}}"), cursor.atEnd else { return nil }
        return CompletionStore.Line(key: key, record: record)
    }

    private struct Cursor {
        let bytes: UnsafeRawBufferPointer
        var at = 0

        var atEnd: Bool { at == bytes.count }

        /// Consumes `text` if the bytes at the cursor are exactly it.
        mutating func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard bytes.count - at >= count,
                  memcmp(bytes.baseAddress! + at, text.utf8Start, count) == 0 else { return false }
            at += count
            return true
        }

        /// Exactly four hexadecimal digits (no sign, which `UInt32(_:radix:)` would take).
        static func hex4(_ digits: Slice<UnsafeRawBufferPointer>) -> UInt32? {
            var value: UInt32 = 0
            for d in digits {
                switch d {
                case 0x30...0x39: value = value << 4 | UInt32(d - 0x30)
                case 0x41...0x46: value = value << 4 | UInt32(d - 0x41 + 10)
                case 0x61...0x66: value = value << 4 | UInt32(d - 0x61 + 10)
                default: return nil
                }
            }
            return value
        }

        /// A decimal integer as JSON writes one: optionally negative, no leading zero, fits an
        /// `Int64`.
        mutating func integer() -> Int64? {
            var negative = false
            if at < bytes.count, bytes[at] == UInt8(ascii: "-") { negative = true; at += 1 }
            let start = at
            if at + 1 < bytes.count, bytes[at] == UInt8(ascii: "0"), (0x30...0x39).contains(bytes[at + 1]) { return nil }
            var value: Int64 = 0
            while at < bytes.count, case let digit = bytes[at], digit >= 0x30, digit <= 0x39 {
                let (times, o1) = value.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times.addingReportingOverflow(Int64(digit - 0x30))
                guard !o1, !o2 else { return nil }
                value = sum
                at += 1
            }
            guard at > start else { return nil }
            return negative ? -value : value
        }

        /// A JSON string with the escapes `JSONValue.quoted` writes; valid UTF-8 only.
        mutating func string() -> String? {
            guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { return nil }
            at += 1
            let start = at
            var ascii = true
            // The common case, no escape: the bytes between the quotes are the string.
            while at < bytes.count, bytes[at] != UInt8(ascii: "\""), bytes[at] != UInt8(ascii: "\\"), bytes[at] >= 0x20 {
                ascii = ascii && bytes[at] < 0x80
                at += 1
            }
            guard at < bytes.count else { return nil }
            if bytes[at] == UInt8(ascii: "\"") {
                defer { at += 1 }
                let text = UnsafeRawBufferPointer(rebasing: bytes[start..<at])
                // ASCII (keys, dates, most names and tags) is valid UTF-8 as it is: decoded
                // without the validating initialiser, which cost about 1,700 instructions a field.
                return ascii ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
            }
            var out: [UInt8] = []
            out.reserveCapacity(at - start + 16)
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<at]))
            while at < bytes.count {
                let byte = bytes[at]
                at += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(validating: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard at < bytes.count else { return nil }
                    let escape = bytes[at]
                    at += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        // Only what the writer makes: control characters, U+2028 and U+2029
                        // (no surrogate pairs; those go to JSONDecoder).
                        guard bytes.count - at >= 4, let value = Self.hex4(bytes[at..<at + 4]),
                              !(0xD800...0xDFFF).contains(value), let scalar = Unicode.Scalar(value) else { return nil }
                        at += 4
                        out.append(contentsOf: Array(String(Character(scalar)).utf8))
                    default:
                        return nil
                    }
                case 0..<0x20:
                    return nil  // a raw control character is not JSON
                default:
                    out.append(byte)
                }
            }
            return nil
        }
    }
}
