import Foundation
import PropertyBased
import Testing
@testable import TransferTopCLI
import TransferKit
@testable import TransferTopRun
import TransferTopUI

/// Random text thrown at every numeric option and at the job, theme and key parsers
/// and the resume-data decoder. Errors are fine; a crash (an integer trap, a force unwrap) is
/// the failure, and it takes the test process down with it.
@Suite struct NoCrashPropertyTests {
    /// Pieces that reach the corners: number syntax, huge exponents, TOML and theme syntax,
    /// line breaks, NUL, bidi overrides, escapes, non-ASCII.
    static let pieces: [String] = [
        "0", "1", "9", "-", "+", ".", "e", "E", "1e26", "18446744072", "9223372036854775807", "nan", "inf",
        "-inf", "0x", "_", " ", "\t", "\n", "\r\n", "\r", "\u{0}", "\"", "\\", "\\n", "[", "]", "[[session]]",
        "[[session.task]]", "=", ",", "#", ":", "/", "%", "%0A", "url", "request_timeout", "max_connections_per_host",
        "headers", "kind", "file", "method", "on", "bold", "#ff00ff", "255", "256", "barFill", "q", "x", "quit",
        "cancel", "none", "ctrl-", "F12", "é", "🙂", "\u{202E}", "\u{1B}[2J", "http://", "https://h/", "a",
    ]

    static let nasty = Gen<String?>.element(of: pieces).map { $0! }.array(of: 0...24).map { $0.joined() }
    static let bytes = Gen<UInt8>.value(in: 0...255).array(of: 0...400)

    @Test func numericOptionsNeverCrash() async {
        // Every input through the conversions the options use, and the plan they make...
        await propertyCheck(count: 400, input: Self.nasty) { text in
            var o = Options()
            if let s = try? OptionValues.seconds(text, "--request-timeout") { o.requestTimeout = s }
            if let s = try? OptionValues.seconds(text, "--resource-timeout") { o.resourceTimeout = s }
            if let n = try? OptionValues.integer(text, "--fps", range: 1...120) { o.fps = n }
            if let n = try? OptionValues.integer(text, "--max-connections-per-host", range: 1...1000) { o.maxConnectionsPerHost = n }
            _ = try? RunPlan.from(o, urls: [URL(string: "http://a/")!], outputDirectory: "/tmp").sessions[0].configuration
        }
        // ...and through the whole command line: argument-parser checks its definitions on
        // every parse in a debug build (about 20 ms), so fewer of these.
        let options = ["--request-timeout", "--resource-timeout", "--fps", "--max-connections-per-host", "-A", "-H"]
        await propertyCheck(count: 40, input: Self.nasty) { text in
            for option in options {
                if case .run(let o)? = try? TransferTopCommand.command(from: [option, text, "http://a/"]) {
                    _ = try? RunPlan.from(o, urls: [URL(string: "http://a/")!], outputDirectory: "/tmp").sessions[0].configuration
                }
                _ = try? TransferTopCommand.command(from: ["\(option)=\(text)", "http://a/"])
            }
            _ = try? TransferTopCommand.command(from: [text])
            _ = try? TransferTopCommand.command(from: ["-H", text, text])
            _ = try? TransferTopCommand.command(from: ["-" + text, "http://a/"])
        }
    }

    @Test func jobParserNeverCrashes() async {
        await propertyCheck(count: 400, input: Self.nasty, Self.nasty) { key, value in
            _ = try? JobFile.parse(key + value, file: "j.toml")
            _ = try? JobFile.parse("[[session]]\n\(key) = \(value)\n[[session.task]]\nurl = \"http://a/\"\n", file: "j.toml")
            _ = try? JobFile.parse("[[session]]\n[[session.task]]\n\(key) = \(value)\n", file: "j.toml")
            // Well-formed TOML with nasty contents reaches the field checks and the line index.
            _ = try? JobFile.parse("[[session]]\nheaders = [\"\(key.debugDescription.dropFirst().dropLast())\"]\n[[\(value)]]\n", file: "j.toml")
            _ = try? JobFile.parse("[[session]]\n[[session.task]]\nurl = '\(value.replacingOccurrences(of: "'", with: ""))'\n", file: "j.toml")
        }
    }

    @Test func themeAndKeyParsersNeverCrash() async {
        await propertyCheck(count: 400, input: Self.nasty, Self.nasty) { a, b in
            _ = try? ThemeParser.parse(a + b, file: "t.toml")
            _ = try? ThemeParser.parse("barFill = \(a)\n\(b) = red", file: "t.toml")
            _ = try? KeyBindingParser.parse(a + b, file: "keys.toml")
            _ = try? KeyBindingParser.parse("\(a) = \(b)", file: "keys.toml")
            _ = try? ThemeParser.parse("barFill = { fg = \(a) }\n\"\(b.debugDescription.dropFirst().dropLast())\" = 'red'", file: "t.toml")
            _ = try? KeyBindingParser.parse("'\(a.replacingOccurrences(of: "'", with: ""))' = \"\(b.debugDescription.dropFirst().dropLast())\"", file: "keys.toml")
        }
    }

    /// TOML's own corners, for the toml++ parser under job, theme and key files: brackets,
    /// braces, quotes of every kind, dotted keys, dates, line breaks in odd places.
    static let tomlPieces: [String] = [
        "[", "]", "[[", "]]", "[[[", "{", "}", "=", ",", ".", "\"", "'", "\"\"\"", "'''", "\\", "\\u", "\\U0001",
        "#", "\n", "\r\n", "\r", " ", "\t", "\u{0}", "a", "b-c", "_", "1", "1979-05-27", "T07:32:00", "Z", "+",
        "-", "0x", "0o", "0b", "1e", "inf", "nan", "true", "false", "session", "task", "url", "\u{7F}", "é", "🙂",
        ":", "t", "T", "07", "-05", "1979", "\u{2028}", "\u{A0}", "\u{85}", "\u{FEFF}", "=1979-05-27T", "=[",
    ]

    @Test func tomlDocumentsNeverCrash() async {
        let count = Int(ProcessInfo.processInfo.environment["NOCRASH_TOML_COUNT"] ?? "") ?? 2000
        let documents = Gen<String?>.element(of: Self.tomlPieces).map { $0! }.array(of: 0...32).map { $0.joined() }
        await propertyCheck(count: count, input: documents) { text in
            _ = try? ConfigDocument.parse(text)
        }
        // Line-shaped documents get past the first line: keys, headers and values in place.
        let piece = Gen<String?>.element(of: Self.tomlPieces).map { $0! }.array(of: 0...6).map { $0.joined() }
        let line = piece.array(of: 3...3).map { p in
            let shapes = ["k = \(p[1])\(p[2])", "[\(p[1])]", "[[\(p[1])]]\(p[2])", "a.\(p[1]) = [\(p[2])"]
            return shapes[p[0].unicodeScalars.count % shapes.count]
        }
        await propertyCheck(count: count, input: line.array(of: 1...8).map { $0.joined(separator: "\n") }) { text in
            _ = try? ConfigDocument.parse(text)
        }
    }

    @Test func resumeDataDecoderNeverCrashes() async {
        let valid = ResumeData(url: "http://u:p@h/x?token=t", entityTag: "\"e\"", lastModified: nil, bytesReceived: 10,
                               partialFilePath: "/tmp/p", createdAt: Date(), sessionKindName: "default",
                               originalTaskIdentifier: 1).encoded()
        await propertyCheck(count: 400, input: Self.bytes, Self.nasty) { noise, text in
            for data in [Data(noise), Self.mutate(valid, with: noise), Self.splice(valid, text)] {
                guard let r = try? ResumeData(decoding: data) else { continue }
                _ = try? r.validate(stateDirectory: "/tmp") { _ in 10 }
                _ = r.withoutCredentials().restoringCredentials(from: r.url)?.encoded()
                _ = URL(string: r.url)!  // the session unwraps it only after decoding succeeded
            }
        }
    }

    /// `valid` with bytes replaced at positions chosen by `noise`.
    static func mutate(_ valid: Data, with noise: [UInt8]) -> Data {
        var d = valid
        for pair in stride(from: 0, to: noise.count - 1, by: 2) where !d.isEmpty {
            d[d.startIndex + Int(noise[pair]) * d.count / 256] = noise[pair + 1]
        }
        return d
    }

    /// `valid`'s JSON payload with `text` put in place of the URL.
    static func splice(_ valid: Data, _ text: String) -> Data {
        let s = String(decoding: valid, as: UTF8.self)
        let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return Data(s.replacingOccurrences(of: "http://u:p@h/x?token=t", with: "http://" + escaped).utf8)
    }
}
