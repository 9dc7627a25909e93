import Foundation

extension TransactionMetrics {
    /// The phase a finished, failed hop was in when it ended: the last phase it started and
    /// never finished (a DNS lookup that found nothing, a connect refused, a TLS handshake that
    /// failed, a request or a wait cut short). nil for a hop that is still running, that
    /// succeeded, or that failed after its response began (its receive phase has an end).
    ///
    /// The TCP end of a failed TLS handshake is unknown (libcurl 7.88 stamps CONNECT only when
    /// the whole chain connected, see MetricsTranslation), so such a hop failed in `tls`,
    /// which then covers connect and handshake together.
    public var failedPhase: TransactionPhase? {
        guard currentPhase == .done, errorDescription != nil, responseStartDate == nil else { return nil }
        if domainLookupStartDate != nil, domainLookupEndDate == nil { return .dns }
        if secureConnectionStartDate != nil, secureConnectionEndDate == nil { return .tls }
        if connectStartDate != nil, connectEndDate == nil { return .connect }
        if requestStartDate != nil, requestEndDate == nil { return .request }
        if requestEndDate != nil { return .wait }
        return nil
    }

    /// When the failed phase began (see `failedPhase`).
    public var failedPhaseStart: Date? {
        switch failedPhase {
        case .dns: return domainLookupStartDate
        case .tls: return secureConnectionStartDate
        case .connect: return connectStartDate
        case .request: return requestStartDate
        case .wait: return requestEndDate
        default: return nil
        }
    }
}
