import Foundation

/// The part of argument-parser's `--experimental-dump-help` JSON (ToolInfo, serialization
/// version 0) the man page is written from, and `QuickRunLineTests` checks its table against. Our own copy of the shape: the library's
/// `ArgumentParserToolInfo` module is not a product a package can import.
struct ToolInfo: Decodable {
    var command: CommandInfo

    struct CommandInfo: Decodable {
        var commandName: String
        var aliases: [String]?
        var abstract: String?
        var discussion: String?
        var defaultSubcommand: String?
        var shouldDisplay: Bool?
        var subcommands: [CommandInfo]?
        var arguments: [ArgumentInfo]?
    }

    struct ArgumentInfo: Decodable {
        enum Kind: String, Decodable { case positional, option, flag }
        struct Name: Decodable {
            var kind: String
            var name: String
            /// `-i`, `--input-file`.
            var spelled: String { kind == "short" ? "-" + name : (kind == "long" ? "--" : "-") + name }
        }
        var kind: Kind
        var names: [Name]?
        var valueName: String?
        var abstract: String?
        var discussion: String?
        var isRepeating: Bool?
        /// How a value is taken (`unconditional`, `default`, …).
        var parsingStrategy: String?
        var shouldDisplay: Bool?
        var sectionTitle: String?
    }

    static func decode(_ json: String) throws -> ToolInfo {
        try JSONDecoder().decode(ToolInfo.self, from: Data(json.utf8))
    }
}
