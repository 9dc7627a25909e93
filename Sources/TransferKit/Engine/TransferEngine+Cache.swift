import Foundation

/// The HTTP cache's part in setting up a hop's handle (CacheParticipation.swift).
extension TransferEngine {
    /// The validators of a revalidating first hop (added to its headers).
    func cacheConditionalHeaders(_ t: Transfer) -> [HTTPHeader] { CacheParticipation.conditionalHeaders(t) }
}
