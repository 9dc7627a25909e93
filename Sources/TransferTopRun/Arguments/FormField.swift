import Foundation
import TransferKit

/// One `-F/--form` argument, in curl's syntax:
/// - `name=value`: a text field;
/// - `name=@path[;type=TYPE][;filename=NAME]`: a file, streamed from disk (the filename sent
///   is the path's last component unless given; the type is guessed from the extension);
/// - `name=<path[;type=TYPE]`: a field whose value is the file's content (no filename).
/// A path with `;` in it is written in double quotes: `name=@"a;b.txt"`.
public enum FormField: Sendable, Equatable, Codable {
    case value(name: String, String)
    case file(name: String, path: String, type: String?, filename: String?)
    case contents(name: String, path: String, type: String?)

    public static func parse(_ text: String) throws(UsageError) -> FormField {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
            throw UsageError("bad --form '\(SafeQuote.quote(text, limit: 30))' (expected NAME=VALUE, NAME=@FILE or NAME=<FILE)")
        }
        let name = String(text[..<eq])
        try refuseLineBreaks(name, "the field name", in: text)
        let rest = text[text.index(after: eq)...]
        guard let marker = rest.first, marker == "@" || marker == "<" else { return .value(name: name, String(rest)) }
        var (path, options) = try splitPath(rest.dropFirst(), in: text)
        guard !path.isEmpty else { throw UsageError("bad --form '\(SafeQuote.quote(text, limit: 30))': no file name after \(marker)") }
        let type = options.removeValue(forKey: "type")
        let filename = options.removeValue(forKey: "filename")
        if let type { try refuseLineBreaks(type, "type=", in: text) }
        if let filename { try refuseLineBreaks(filename, "filename=", in: text) }
        if let unknown = options.keys.sorted().first {
            throw UsageError("bad --form '\(SafeQuote.quote(text, limit: 30))': unknown option '\(SafeQuote.quote(unknown))' (type= and filename= are known)")
        }
        if marker == "<" {
            if filename != nil { throw UsageError("bad --form '\(SafeQuote.quote(text, limit: 30))': filename= goes with @FILE, not <FILE") }
            return .contents(name: name, path: path, type: type)
        }
        return .file(name: name, path: path, type: type, filename: filename)
    }

    /// The name, `type=` and `filename=` go into the part's header lines: CR, LF or NUL in
    /// one would end a line early and add a header of the user's text (as `-H` refuses).
    private static func refuseLineBreaks(_ value: String, _ what: String, in whole: String) throws(UsageError) {
        guard value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) else { return }
        throw UsageError("bad --form '\(SafeQuote.quote(whole, limit: 60))': \(what) contains CR, LF or NUL")
    }

    /// The path (quoted or up to the first `;`) and the `key=value` options after it.
    private static func splitPath(_ s: Substring, in whole: String) throws(UsageError) -> (String, [String: String]) {
        var path: Substring
        var tail: Substring
        if s.first == "\"" {
            let body = s.dropFirst()
            guard let close = body.firstIndex(of: "\"") else { throw UsageError("bad --form '\(SafeQuote.quote(whole, limit: 30))': unclosed quote") }
            path = body[..<close]
            tail = body[body.index(after: close)...]
        } else {
            let semi = s.firstIndex(of: ";") ?? s.endIndex
            path = s[..<semi]
            tail = s[semi...]
        }
        var options: [String: String] = [:]
        for piece in tail.split(separator: ";") {
            let kv = piece.split(separator: "=", maxSplits: 1)
            guard kv.count == 2 else { throw UsageError("bad --form '\(SafeQuote.quote(whole, limit: 30))': expected ;key=value after the file") }
            options[kv[0].trimmingCharacters(in: .whitespaces).lowercased()] = String(kv[1])
        }
        return (String(path), options)
    }

    /// The file this field reads, if any (checked before the run starts).
    public var path: String? {
        switch self {
        case .value: return nil
        case .file(_, let path, _, _), .contents(_, let path, _): return path
        }
    }

    /// The form a list of fields makes, files sized now (they are read when each request
    /// is sent).
    static func form(_ fields: [FormField]) throws(TransferError) -> MultipartFormData {
        var form = MultipartFormData()
        for f in fields {
            switch f {
            case .value(let name, let value): form.append(value, name: name)
            case .file(let name, let path, let type, let filename):
                try form.append(fileAt: URL(fileURLWithPath: path), name: name, filename: filename, contentType: type)
            case .contents(let name, let path, let type):
                try form.append(contentsOfFileAt: URL(fileURLWithPath: path), name: name, contentType: type)
            }
        }
        return form
    }
}
