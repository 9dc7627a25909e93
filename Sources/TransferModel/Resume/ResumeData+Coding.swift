import Foundation

/// The envelope (docs/resume-data.md):
///
///     {"magic":"TKRD","version":1,"payload":"<payload JSON as a string>","sha256":"<hex>"}
///
/// The payload is carried as a JSON *string* so its SHA-256 covers exact bytes (no JSON
/// canonicalisation needed), yet `jq -r .payload` still shows it as readable JSON.
extension ResumeData {
    public static let magic = "TKRD"
    /// Every envelope this build writes starts with these bytes.
    static let envelopePrefix = Array(#"{"magic":"TKRD","#.utf8)
    /// Larger input is refused before parsing (resume data is a few hundred bytes).
    public static let maximumEncodedSize = 1 << 20

    public func encoded() -> Data {
        let payloadText = payloadJSON().serialized()
        let envelope = JSONValue.object([
            ("magic", .string(Self.magic)),
            ("version", .int(Int64(Self.formatVersion))),
            ("payload", .string(payloadText)),
            ("sha256", .string(ModelSHA256.hex(Data(payloadText.utf8)))),
        ])
        return Data(envelope.serialized().utf8)
    }

    /// `date` in whole milliseconds since 1970, clamped to what the reader accepts: a date from
    /// anywhere (a caller's, a clock gone wrong) never traps the conversion.
    static func milliseconds(_ date: Date) -> Int64 {
        let ms = (date.timeIntervalSince1970 * 1000).rounded()
        let limit = Double(ResumeFields.maxMilliseconds - 1)
        return ms.isNaN ? 0 : Int64(min(limit, max(-limit, ms)))
    }

    func payloadJSON() -> JSONValue {
        func opt(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
        return .object([
            ("url", .string(url)),
            ("method", .string(method)),
            ("headers", .array(requestHeaders.map { .object([("name", .string($0.name)), ("value", .string($0.value))]) })),
            ("etag", opt(entityTag)),
            ("lastModified", opt(lastModified)),
            ("bytesReceived", .int(bytesReceived)),
            ("expectedTotal", .int(expectedTotal)),
            ("partialFile", .string(partialFilePath)),
            ("createdAtMs", .int(Self.milliseconds(createdAt))),
            ("sessionKind", .string(sessionKindName)),
            ("taskId", .int(Int64(originalTaskIdentifier))),
        ])
    }

    /// Reads resume data, checking in order: size and JSON shape, magic, version, SHA-256,
    /// payload fields, method, validators. File checks are `validate(...)`'s job.
    public init(decoding data: Data) throws(ResumeDataError) {
        let envelope = try Self.envelope(data)
        guard envelope["magic"] as? String == Self.magic else { throw .notResumeData }
        guard let version = ResumeFields.integer(envelope["version"]) else {
            throw .malformed("the envelope has no integer \"version\"")
        }
        guard version == Int64(Self.formatVersion) else {
            throw .unsupportedVersion(Int(clamping: version))
        }
        guard let payload = envelope["payload"] as? String, let digest = envelope["sha256"] as? String else {
            throw .malformed("the envelope needs string fields \"payload\" and \"sha256\"")
        }
        guard ModelSHA256.hex(Data(payload.utf8)) == digest.lowercased() else { throw .integrityCheckFailed }
        self = try ResumeFields.payload(payload)
    }

    /// The top-level JSON object, telling truncated data from foreign data.
    static func envelope(_ data: Data) throws(ResumeDataError) -> [String: Any] {
        let bytes = Array(data.prefix(envelopePrefix.count))
        if data.isEmpty || (data.count < envelopePrefix.count && bytes == Array(envelopePrefix.prefix(bytes.count))) {
            throw .truncated
        }
        guard data.count <= maximumEncodedSize else { throw .malformed("larger than \(maximumEncodedSize) bytes") }
        let hasMagic = bytes == envelopePrefix
        guard data.first == UInt8(ascii: "{") else { throw .notResumeData }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: data, options: [])
        } catch {
            guard hasMagic else { throw .notResumeData }
            // Our own envelope that no longer parses: cut off if it lost its closing brace.
            let last = data.last { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }
            throw last == UInt8(ascii: "}") ? .malformed("the envelope is not valid JSON") : .truncated
        }
        guard let object = parsed as? [String: Any] else { throw .notResumeData }
        return object
    }
}
