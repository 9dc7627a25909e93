/// When a response body is decoded, and what that means for its length.
///
/// URLSession asks for content codings and decodes them; curl asks for none and keeps the
/// bytes. TransferKit does the first unless the configuration says otherwise, except on byte
/// range requests: a range addresses bytes of the encoded representation, which cannot be
/// decoded from the middle.
public enum ContentCodingPolicy {
    /// Whether a request asks for (and gets decoded) content codings.
    public static func decodes(accepts: Bool, requestHeaders: [HTTPHeader]) -> Bool {
        accepts && requestHeaders.first(named: "Range") == nil
    }

    /// The response's Content-Encoding when it transforms the body (anything but identity),
    /// lower-cased; nil for none.
    public static func transformingEncoding(_ headers: [HTTPHeader]) -> String? {
        guard let enc = headers.first(named: "Content-Encoding")?.trimmedSpacesTabs.lowercased(), !enc.isEmpty,
              enc != "identity" else { return nil }
        return enc
    }

    public static func isTransformed(_ headers: [HTTPHeader]) -> Bool { transformingEncoding(headers) != nil }
}
