import Foundation

/// The netrc format curl, wget and ftp read: `machine HOST login USER password PASS`. A value
/// with white space, a quote or a backslash is written in double quotes with `\"` and `\\`
/// escapes, as curl (7.84 on) reads it; such values are read back the same way.
enum Netrc {
    struct Entry: Equatable { var machine: String, login: String, password: String }

    static func parse(_ text: String) -> [Entry] {
        let words = tokens(text)
        var out: [Entry] = [], i = 0, current: Entry?
        while i < words.count {
            let w = words[i], next = i + 1 < words.count ? words[i + 1] : ""
            switch w {
            case "machine":
                if let c = current { out.append(c) }
                current = Entry(machine: next, login: "", password: "")
                i += 2
            case "login": current?.login = next; i += 2
            case "password": current?.password = next; i += 2
            case "default":
                if let c = current { out.append(c) }
                current = nil
                i += 1
            default: i += 1
            }
        }
        if let c = current { out.append(c) }
        return out
    }

    static func line(machine: String, login: String, password: String) -> String {
        "machine \(quoted(machine)) login \(quoted(login)) password \(quoted(password))\n"
    }

    static func quoted(_ value: String) -> String {
        guard value.isEmpty || value.contains(where: { $0.isWhitespace || $0 == "\"" || $0 == "\\" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// Words separated by white space; a word starting with `"` runs to the closing quote.
    static func tokens(_ text: String) -> [String] {
        var out: [String] = [], rest = Substring(text)
        while true {
            rest = rest.drop { $0.isWhitespace }
            guard let first = rest.first else { return out }
            if first == "\"" {
                var word = "", escaped = false
                rest = rest.dropFirst()
                while let c = rest.first {
                    rest = rest.dropFirst()
                    if escaped { word.append(c); escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { break } else {
                        word.append(c)
                    }
                }
                out.append(word)
            } else {
                let word = rest.prefix { !$0.isWhitespace }
                out.append(String(word))
                rest = rest.dropFirst(word.count)
            }
        }
    }
}
