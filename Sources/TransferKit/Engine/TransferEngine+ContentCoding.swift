import Foundation

extension TransferEngine {
    /// Whether this hop asks for content codings and gets the body decoded by libcurl
    /// (`ContentCodingPolicy`): the configuration says so and no byte range is requested.
    func decodesContent(_ t: Transfer) -> Bool {
        ContentCodingPolicy.decodes(accepts: configuration.httpAcceptsContentEncoding,
                                    requestHeaders: t.request.headers + configuration.httpAdditionalHeaders)
    }
}
