import Digest
import Foundation
import Testing
@testable import TransferModel

let stateDir = "/home/u/.local/state/transfertop/partial"

func sampleResumeData(etag: String? = "\"v1-abc\"", lastModified: String? = "Wed, 21 Oct 2015 07:28:00 GMT",
                      received: Int64 = 400, total: Int64 = 1000) -> ResumeData {
    ResumeData(url: "https://example.test/big.bin", requestHeaders: [
        HTTPHeader("User-Agent", "transfertop/0.1"), HTTPHeader("Authorization", "Bearer SECRET"),
        HTTPHeader("Cookie", "a=b"), HTTPHeader("Accept-Encoding", "gzip"), HTTPHeader("X-Api-Key", "K"),
        HTTPHeader("Accept", "*/*"),
    ], entityTag: etag, lastModified: lastModified, bytesReceived: received, expectedTotal: total,
       partialFilePath: stateDir + "/task-7.part", createdAt: t0, sessionKindName: "background",
       originalTaskIdentifier: 7)
}

/// Builds an envelope by hand, to forge any field.
func envelope(magic: String = "TKRD", version: JSONValue = .int(1), payload: String, sha: String? = nil) -> Data {
    Data(JSONValue.object([
        ("magic", .string(magic)), ("version", version), ("payload", .string(payload)),
        ("sha256", .string(sha ?? SHA256.hex(Data(payload.utf8)))),
    ]).serialized().utf8)
}

/// The sample's payload with one field replaced (or removed with nil).
func payload(_ key: String, _ value: JSONValue?) -> String {
    guard case .object(let fields) = sampleResumeData().payloadJSON() else { fatalError() }
    var out = fields.filter { $0.0 != key }
    if let value { out.append((key, value)) }
    return JSONValue.object(out).serialized()
}

@Suite struct ResumeDataCodingTests {
    @Test func roundTrips() throws {
        let original = sampleResumeData()
        let decoded = try ResumeData(decoding: original.encoded())
        #expect(decoded == original)
        #expect(decoded.requestHeaders == [HTTPHeader("User-Agent", "transfertop/0.1"), HTTPHeader("Accept", "*/*")])
    }

    @Test func encodingIsDeterministicReadableAndSecretFree() {
        let data = sampleResumeData().encoded()
        #expect(data == sampleResumeData().encoded())
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.hasPrefix(#"{"magic":"TKRD","version":1,"payload":"{\"url\":\"https://example.test/big.bin\""#))
        #expect(!text.contains("SECRET") && !text.contains("a=b") && !text.contains("gzip"))
    }

    @Test func sha256MatchesAKnownVector() {
        #expect(SHA256.hex(Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    /// TransferModel's own digest (resume-data envelope, Vary values) is the one OpenSSL
    /// computes, at every length around the 64-byte block and its 56-byte padding edge.
    @Test func modelDigestAgreesWithOpenSSL() {
        for n in [0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 4096 + 7] {
            let data = Data((0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
            #expect(ModelSHA256.hex(data) == SHA256.hex(data), "\(n) bytes")
        }
        let h = ModelSHA256.Hasher()
        for piece in ["abcdbcdecdefdefgefghfghighijhijk", "ijkljklmklmnlmnomnopnopq"] { Data(piece.utf8).withUnsafeBytes { h.update($0) } }
        #expect(h.finalizeHex() == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    static let valid = sampleResumeData().encoded()

    /// Integers at and past Int64's ends, as JSON text: refused, never a trap (`abs` of
    /// Int64.min, or a UInt64 read back as a negative number).
    @Test(arguments: ["-9223372036854775808", "9223372036854775808", "18446744073709551615", "-9223372036854775809"])
    func createdAtTheEndsOfInt64IsRefused(_ text: String) {
        let p = payload("createdAtMs", .int(1234567)).replacingOccurrences(of: "1234567", with: text)
        #expect(throws: ResumeDataError.self) { try ResumeData(decoding: envelope(payload: p)) }
    }

    /// Any date encodes without trapping, clamped to what decoding accepts; the earliest and
    /// latest accepted still round-trip to the millisecond.
    @Test func anyDateEncodesAndReadsBack() throws {
        for seconds in [1e300, -1e300, Double.infinity, -Double.infinity, .nan, 8.9e12, -8.9e12] {
            var r = sampleResumeData()
            r.createdAt = Date(timeIntervalSince1970: seconds)
            let back = try ResumeData(decoding: r.encoded())
            #expect(abs(back.createdAt.timeIntervalSince1970) < 9e12, "\(seconds)")
            if abs(seconds) < 9e12 { #expect(back.createdAt == r.createdAt, "\(seconds)") }
        }
    }

    @Test(arguments: [
        ("empty", Data(), ResumeDataError.truncated),
        ("magic prefix only", Data(#"{"magic":"TK"#.utf8), .truncated),
        ("cut in half", valid.prefix(valid.count / 2), .truncated),
        ("last byte cut", valid.dropLast(), .truncated),
        ("random text", Data("hello".utf8), .notResumeData),
        ("Apple binary plist", Data("bplist00\u{1}".utf8), .notResumeData),
        ("JSON array", Data("[1,2]".utf8), .notResumeData),
        ("other JSON object", Data(#"{"a":1}"#.utf8), .notResumeData),
        ("wrong magic", envelope(magic: "TKRX", payload: "{}"), .notResumeData),
        ("version 2", envelope(version: .int(2), payload: "{}"), .unsupportedVersion(2)),
        ("version 0", envelope(version: .int(0), payload: "{}"), .unsupportedVersion(0)),
        ("version string", envelope(version: .string("1"), payload: "{}"), .malformed("the envelope has no integer \"version\"")),
        ("payload edited", envelope(payload: payload("bytesReceived", .int(999)), sha: SHA256.hex(Data(payload("bytesReceived", .int(400)).utf8))), .integrityCheckFailed),
        ("digest edited", envelope(payload: payload("bytesReceived", .int(400)), sha: String(repeating: "0", count: 64)), .integrityCheckFailed),
        ("payload not JSON", envelope(payload: "not json"), .malformed("the payload is not a JSON object")),
        ("url missing", envelope(payload: payload("url", nil)), .malformed("\"url\" must be a string")),
        ("file URL", envelope(payload: payload("url", .string("file:///etc/passwd"))), .malformed("\"url\" must be an http, https, ftp or ftps URL")),
        ("POST", envelope(payload: payload("method", .string("POST"))), .notGET),
        ("no validators", envelope(payload: JSONValue.object([("url", .string("https://h/")), ("method", .string("GET")), ("etag", .null)]).serialized()), .noValidator),
        ("offset negative", envelope(payload: payload("bytesReceived", .int(-5))), .malformed("\"bytesReceived\" -5 does not fit \"expectedTotal\" 1000")),
        ("offset beyond total", envelope(payload: payload("bytesReceived", .int(1001))), .malformed("\"bytesReceived\" 1001 does not fit \"expectedTotal\" 1000")),
        ("offset fractional", envelope(payload: payload("bytesReceived", .number(1.5))), .malformed("\"bytesReceived\" must be an integer")),
        ("offset bool", envelope(payload: payload("bytesReceived", .bool(true))), .malformed("\"bytesReceived\" must be an integer")),
        ("header injection", envelope(payload: payload("headers", .array([.object([("name", .string("X")), ("value", .string("a\r\nHost: evil"))])]))), .malformed("header \"X\" is not a valid header line")),
        ("header name not a token", envelope(payload: payload("headers", .array([.object([("name", .string("Bad Name:")), ("value", .string("v"))])]))), .malformed("header \"Bad Name:\" is not a valid header line")),
        ("ETag injection", envelope(payload: payload("etag", .string("\"e1\"\r\nX-Inj: 1"))), .malformed("\"etag\" is not a valid header value")),
        ("ETag with a bare CR", envelope(payload: payload("etag", .string("\"e1\rX-Inj: 1\""))), .malformed("\"etag\" is not a valid header value")),
        ("Last-Modified with NUL", envelope(payload: payload("lastModified", .string("Wed, 21 Oct 2015\u{0} 07:28:00 GMT"))), .malformed("\"lastModified\" is not a valid header value")),
        ("created beyond Int64's milliseconds", envelope(payload: payload("createdAtMs", .int(Int64.max))), .malformed("\"createdAtMs\" 9223372036854775807 is out of range")),
        ("created before them", envelope(payload: payload("createdAtMs", .int(-9_100_000_000_000_000))), .malformed("\"createdAtMs\" -9100000000000000 is out of range")),
    ] as [(String, Data, ResumeDataError)])
    func refusesBadData(_ name: String, _ data: Data, _ expected: ResumeDataError) {
        #expect(throws: expected, "\(name)") { try ResumeData(decoding: data) }
    }

    @Test func everyErrorHasAClearMessageAndMapsToTransferError() {
        let all: [ResumeDataError] = [.truncated, .notResumeData, .unsupportedVersion(9), .integrityCheckFailed,
            .malformed("x"), .partialFileMissing(path: "/p"), .partialFileTooShort(expected: 5, actual: 3),
            .pathOutsideStateDirectory(path: "/etc/passwd"), .notGET, .noValidator]
        for e in all {
            #expect(e.description.count > 20)
            #expect(e.transferError.code == .cannotDecodeResumeData)
        }
        #expect(ResumeDataError.partialFileTooShort(expected: 5, actual: 3).description.contains("3 bytes"))
        #expect(ResumeDataError.unsupportedVersion(9).description.contains("9"))
    }

    @Test func refusesOversizedInput() {
        let huge = Data(#"{"magic":"TKRD","#.utf8) + Data(repeating: 0x20, count: ResumeData.maximumEncodedSize)
        #expect(throws: ResumeDataError.malformed("larger than \(ResumeData.maximumEncodedSize) bytes")) {
            try ResumeData(decoding: huge)
        }
    }
}

@Suite struct ResumeDataValidationTests {
    static func sizes(_ table: [String: Int64]) -> (String) -> Int64? { { table[$0] } }

    @Test func acceptsAPartialFileDirectlyInsideTheStateDirectory() throws {
        try sampleResumeData().validate(stateDirectory: stateDir, fileSize: Self.sizes([stateDir + "/task-7.part": 400]))
        try sampleResumeData().validate(stateDirectory: stateDir + "/", fileSize: Self.sizes([stateDir + "/task-7.part": 1000]))
    }

    @Test(arguments: [
        "/etc/passwd", "relative/task.part", stateDir, stateDir + "/", stateDir + "/../partial/task-7.part",
        stateDir + "/sub/task-7.part", stateDir + "/../../../../etc/shadow", stateDir + "/./..",
        stateDir + "/x\u{0}.part", "", stateDir + "-evil/task.part",
    ])
    func refusesPathsOutsideTheStateDirectory(_ path: String) {
        var r = sampleResumeData()
        r.partialFilePath = path
        var probed: [String] = []
        #expect(throws: ResumeDataError.pathOutsideStateDirectory(path: path)) {
            try r.validate(stateDirectory: stateDir, fileSize: { probed.append($0); return 1 << 40 })
        }
        #expect(probed.isEmpty)  // forged data cannot even probe for a file's existence
    }

    @Test func canonicalisesDotsAndDoubleSlashes() throws {
        var r = sampleResumeData()
        r.partialFilePath = stateDir + "//./task-7.part"
        var probed: [String] = []
        try r.validate(stateDirectory: stateDir, fileSize: { probed.append($0); return 400 })
        #expect(probed == [stateDir + "/task-7.part"])
    }

    @Test func missingAndShortFiles() {
        let r = sampleResumeData()
        #expect(throws: ResumeDataError.partialFileMissing(path: stateDir + "/task-7.part")) {
            try r.validate(stateDirectory: stateDir, fileSize: Self.sizes([:]))
        }
        #expect(throws: ResumeDataError.partialFileTooShort(expected: 400, actual: 399)) {
            try r.validate(stateDirectory: stateDir, fileSize: Self.sizes([stateDir + "/task-7.part": 399]))
        }
    }
}

@Suite struct ResumeDataFuzzTests {
    /// 2,000 random byte strings and 2,000 mutations of a valid blob: the decoder never crashes,
    /// and every failure is a ResumeDataError (typed throws guarantee the type; this checks that
    /// decoding terminates and that a mutated blob is never silently accepted as different data).
    @Test func randomAndMutatedInputNeverCrashes() {
        var rng = SeededRNG(seed: 0x544B_5244)
        let valid = Array(sampleResumeData().encoded())
        var outcomes: [String: Int] = [:]
        for i in 0..<4000 {
            var bytes: [UInt8]
            if i < 2000 {
                bytes = (0..<Int.random(in: 0...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                if i % 3 == 0 { bytes = Array(#"{"magic":"TKRD","#.utf8) + bytes }
            } else {
                bytes = valid
                for _ in 0..<Int.random(in: 1...4, using: &rng) { mutate(&bytes, &rng) }
            }
            do {
                let decoded = try ResumeData(decoding: Data(bytes))
                // Only a mutation that kept the payload intact (e.g. in the envelope's spacing or
                // digest case) may decode, and then to the very same data.
                #expect(decoded == sampleResumeData(), "mutation \(i) decoded to different data")
                outcomes["decoded", default: 0] += 1
            } catch {
                outcomes[String(describing: error).prefix(30).description, default: 0] += 1
            }
        }
        #expect(outcomes.count > 3)  // the corpus reaches several distinct errors
    }

    func mutate(_ bytes: inout [UInt8], _ rng: inout SeededRNG) {
        guard !bytes.isEmpty else { bytes.append(UInt8.random(in: 0...255, using: &rng)); return }
        let at = Int.random(in: 0..<bytes.count, using: &rng)
        switch Int.random(in: 0..<5, using: &rng) {
        case 0: bytes[at] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))
        case 1: bytes.remove(at: at)
        case 2: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: at)
        case 3: bytes = Array(bytes.prefix(at))
        default: bytes[at] = [UInt8(ascii: "\""), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "\\"), UInt8(ascii: "1")].randomElement(using: &rng)!
        }
    }
}

@Suite struct PartialFileNameTests {
    @Test(arguments: [("", ""), ("/", ""), ("///", ""), ("/a", "a"), ("/dir/a.bin", "a.bin"), ("/dir/sub/", "sub"),
                      ("/dir//", "dir"), ("a", "a"), ("/é/ü.txt", "ü.txt"), ("/x//y", "y")])
    func theLastComponentIsTheLastNonEmptyOne(_ path: String, _ last: String) {
        #expect(PartialFileName.lastComponent(path) == last)
        #expect(PartialFileName.lastComponent(path) == path.split(separator: "/").last.map(String.init) ?? "")
    }

    @Test func namesAreHiddenAndRecognised() {
        #expect(PartialFileName.baseName(for: URL(string: "http://h/dir/a%20b.bin?x=1")!) == "a b.bin")
        #expect(PartialFileName.baseName(for: URL(string: "http://h/")!) == "index.html")
        #expect(PartialFileName.baseName(for: URL(string: "http://h/..%2F..%2Fetc")!) == "_.._etc")
        #expect(PartialFileName.partialName("a.bin", attempt: 1) == ".a.bin.ttpart")
        #expect(PartialFileName.partialName("a.bin", attempt: 3) == ".a.bin.3.ttpart")
        #expect(PartialFileName.finalName(ofPartial: ".a.bin.3.ttpart") == "a.bin")
        #expect(PartialFileName.finalName(ofPartial: ".a.bin.ttpart") == "a.bin")
        for bad in ["a.bin.ttpart", ".ttpart", ".a.bin", "x/.a.ttpart"] { #expect(PartialFileName.finalName(ofPartial: bad) == nil) }
    }
}
