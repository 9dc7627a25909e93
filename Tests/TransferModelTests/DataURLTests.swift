import Foundation
import Testing
@testable import TransferModel

/// RFC 2397 by table: media type, charset, the base64 and percent forms, and the refusals.
@Suite struct DataURLTests {
    @Test(arguments: [
        // URL, media type, charset, base64, body
        ("data:,A%20brief%20note", "text/plain", "us-ascii", false, "A brief note"),
        ("DATA:,x", "text/plain", "us-ascii", false, "x"),
        ("data:text/plain;base64,SGVsbG8=", "text/plain", nil, true, "Hello"),
        ("data:text/plain;base64,SGVsbG8", "text/plain", nil, true, "Hello"),  // padding left out
        ("data:text/plain;base64,SGVs%0AbG8=", "text/plain", nil, true, "Hello"),  // a folded line
        ("data:text/plain;BASE64,SGk=", "text/plain", nil, true, "Hi"),
        ("data:;charset=UTF-8,caf%C3%A9", "text/plain", "utf-8", false, "café"),
        ("data:text/html;charset=utf-8,%3Cp%3E", "text/html", "utf-8", false, "<p>"),
        ("data:Text/HTML,x", "text/html", nil, false, "x"),
        ("data:text/plain;charset=\"utf-8\",x", "text/plain", "utf-8", false, "x"),
        ("data:image/svg+xml;charset=utf-8;base64,PHN2Zy8+", "image/svg+xml", "utf-8", true, "<svg/>"),
        ("data:application/json,{\"a\":1}", "application/json", nil, false, "{\"a\":1}"),
        ("data:text/plain,", "text/plain", nil, false, ""),
        ("data:text/plain,a,b", "text/plain", nil, false, "a,b"),  // only the first comma separates
    ] as [(String, String, String?, Bool, String)])
    func parses(_ text: String, _ type: String, _ charset: String?, _ base64: Bool, _ body: String) throws {
        let d = try DataURL.parse(text)
        #expect(d.mediaType == type)
        #expect(d.charset == charset)
        #expect(d.isBase64 == base64)
        #expect(String(decoding: d.data, as: UTF8.self) == body)
    }

    @Test func otherParametersAreKeptInTheContentType() throws {
        let d = try DataURL.parse("data:text/plain;format=flowed;charset=utf-8,x")
        #expect(d.parameters.map(\.name) == ["format"] && d.parameters.map(\.value) == ["flowed"])
        #expect(d.contentType == "text/plain;format=flowed;charset=utf-8")
        #expect(try DataURL.parse("data:,x").contentType == "text/plain;charset=us-ascii")
    }

    @Test func binaryBytesSurvive() throws {
        let bytes = Data((0...255).map { UInt8($0) })
        #expect(try DataURL.parse("data:application/octet-stream;base64," + bytes.base64EncodedString()).data == bytes)
        let percent = bytes.map { String(format: "%%%02X", $0) }.joined()
        #expect(try DataURL.parse("data:application/octet-stream," + percent).data == bytes)
    }

    @Test(arguments: [
        // URL, part of the reason
        ("http://x/,y", "does not start with 'data:'"),
        ("data:text/plain", "no ','"),
        ("data:", "no ','"),
        ("data:text/plain;base64,SGVsbG8=!", "not valid base64"),
        ("data:text/plain;base64,A", "not valid base64"),
        ("data:,100%", "'%' that is not followed by two hex digits"),
        ("data:,%G0", "'%' that is not followed by two hex digits"),
        ("data:text,x", "is not a media type"),
        ("data:text/plain/x,x", "is not a media type"),
        ("data:te xt/plain,x", "is not a media type"),
        ("data:text/plain;charset,x", "is not name=value"),
        ("data:text/plain;charset=,x", "is not name=value"),
    ])
    func refuses(_ text: String, _ reason: String) {
        #expect {
            try DataURL.parse(text)
        } throws: { error in
            let e = error as? DataURLError
            return e?.reason.contains(reason) == true && e?.description.hasPrefix("malformed data: URL: ") == true
        }
    }

    @Test func schemesAndFileTypes() {
        #expect(URLScheme(of: URL(string: "FTP://h/x")!) == .ftp)
        #expect(URLScheme(of: URL(string: "gopher://h/x")!) == nil)
        #expect(URLScheme.data.curlProtocol == "file" && URLScheme.ftps.isTLS && !URLScheme.file.needsHost)
        #expect(FileMIMEType.forPath("/a/b/report.CSV") == "text/csv")
        #expect(FileMIMEType.forPath("/a/b/noext") == "application/octet-stream")
        #expect(FileMIMEType.forPath("/a/.hidden") == "application/octet-stream")
        #expect(FileMIMEType.fileExtension(forMediaType: "text/plain") == "txt")
        #expect(FileMIMEType.fileExtension(forMediaType: "x/unknown") == "bin")
        #expect(HTTPDate.format(secondsSince1970: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(PartialFileName.baseName(for: URL(string: "data:image/png;base64,AA==")!) == "data.png")
    }
}
