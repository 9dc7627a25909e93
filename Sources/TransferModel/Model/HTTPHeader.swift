/// One header line. Order and duplicates are kept as they were on the wire.
public struct HTTPHeader: Sendable, Equatable, Hashable, Codable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// Header names are ASCII tokens: compare their bytes ignoring ASCII case (no Foundation,
    /// no locale; this runs for every header lookup of every response).
    static func lowerASCII(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5A ? c | 0x20 : c }

    public static func namesEqual(_ a: String, _ b: String) -> Bool {
        // Most names compared differ in length (O(1) for native strings): a look-up walks
        // every header of a response, for every response.
        guard a.utf8.count == b.utf8.count else { return false }
        // Usually written the same way (`Content-Length` looked up as `Content-Length`): the
        // same bytes (not `==`, which also takes canonically equivalent Unicode as equal).
        if a.utf8.withContiguousStorageIfAvailable({ x in b.utf8.withContiguousStorageIfAvailable { x.elementsEqual($0) } }) == true {
            return true
        }
        var ia = a.utf8.makeIterator(), ib = b.utf8.makeIterator()
        while true {
            switch (ia.next(), ib.next()) {
            case (nil, nil): return true
            case (let x?, let y?):
                if lowerASCII(x) != lowerASCII(y) { return false }
            default: return false
            }
        }
    }
}

extension Array where Element == HTTPHeader {
    /// The first value of a header, compared case-insensitively.
    public func first(named name: String) -> String? {
        first { HTTPHeader.namesEqual($0.name, name) }?.value
    }
}

#if canImport(Foundation)
import Foundation
#endif
