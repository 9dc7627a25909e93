import Foundation
import Testing

/// docs/urlsession-parity.md's conformance table against URLSessionConformanceTests: every row
/// names a test of the suite, and every test of the suite has a row.
@Suite struct URLSessionParityDocTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The first cell of each row of the table under "## Conformance", without its backticks.
    static func documentedTests() throws -> [String] {
        let doc = try String(contentsOf: root.appendingPathComponent("docs/urlsession-parity.md"), encoding: .utf8)
        guard let start = doc.range(of: "\n## Conformance\n") else { return [] }
        let section = doc[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        return section[..<end].split(separator: "\n")
            .filter { $0.hasPrefix("| `") }
            .compactMap { row in row.split(separator: "`", omittingEmptySubsequences: false).dropFirst().first.map(String.init) }
    }

    /// The names of the suite's `@Test` functions.
    static func suiteTests() throws -> [String] {
        let source = try String(contentsOf: root.appendingPathComponent("Tests/TransferKitTests/URLSessionConformanceTests.swift"),
                                encoding: .utf8)
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        var names: [String] = []
        for (i, line) in lines.enumerated() where line.hasPrefix("@Test") {
            guard let decl = lines[(i + 1)...].first(where: { $0.hasPrefix("func ") }),
                  let open = decl.firstIndex(of: "(") else { continue }
            names.append(String(decl[decl.index(decl.startIndex, offsetBy: 5)..<open]))
        }
        return names
    }

    @Test func everyRowNamesAConformanceTestAndEveryTestHasARow() throws {
        let documented = try Self.documentedTests()
        let tests = try Self.suiteTests()
        #expect(documented.count >= 10, "the conformance table was found")
        #expect(tests.count >= 10, "the suite's tests were found")
        #expect(Set(documented).subtracting(tests).sorted() == [], "rows naming no test of the suite")
        #expect(Set(tests).subtracting(documented).sorted() == [], "tests without a row in docs/urlsession-parity.md")
        #expect(documented.count == Set(documented).count, "a test has one row")
    }
}
