/// One header line. Order and duplicates are kept as they were on the wire.
public struct HTTPHeader: Sendable, Equatable, Hashable, Codable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

extension Array where Element == HTTPHeader {
    /// The first value of a header, compared case-insensitively.
    public func first(named name: String) -> String? {
        first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

#if canImport(Foundation)
import Foundation
#endif
