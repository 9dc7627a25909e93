import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The values Foundation's delegate methods take, made from TransferKit's: challenges,
// credentials, dispositions, metrics, cookies.

extension ProtectionSpace {
    var urlProtectionSpace: URLProtectionSpace {
        let method: String
        switch authenticationMethod {
        case .httpBasic: method = NSURLAuthenticationMethodHTTPBasic
        case .httpDigest: method = NSURLAuthenticationMethodHTTPDigest
        // corelibs marks its constant unavailable (no Security framework); Apple's value.
        case .serverTrust: method = "NSURLAuthenticationMethodServerTrust"
        }
        if isProxy {
            return URLProtectionSpace(proxyHost: host, port: port, type: `protocol`, realm: realm, authenticationMethod: method)
        }
        return URLProtectionSpace(host: host, port: port, protocol: `protocol`, realm: realm, authenticationMethod: method)
    }
}

extension TransferCredential {
    init?(_ c: URLCredential?) {
        guard let c, let user = c.user else { return nil }
        let persistence: Persistence
        switch c.persistence {
        case .none: persistence = .none
        case .permanent, .synchronizable: persistence = .permanent
        default: persistence = .forSession
        }
        self.init(user: user, password: c.password ?? "", persistence: persistence)
    }

    var urlCredential: URLCredential {
        let p: URLCredential.Persistence
        switch persistence {
        case .none: p = .none
        case .forSession: p = .forSession
        case .permanent: p = .permanent
        }
        return URLCredential(user: user, password: password, persistence: p)
    }
}

/// Answers nothing: Foundation's delegates answer through the completion handler, and
/// corelibs' own sender does the same.
final class IgnoringChallengeSender: NSObject, URLAuthenticationChallengeSender {
    func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) {}
    func continueWithoutCredential(for challenge: URLAuthenticationChallenge) {}
    func cancel(_ challenge: URLAuthenticationChallenge) {}
    func performDefaultHandling(for challenge: URLAuthenticationChallenge) {}
    func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) {}
}

extension AuthenticationChallenge {
    var urlAuthenticationChallenge: URLAuthenticationChallenge {
        URLAuthenticationChallenge(protectionSpace: protectionSpace.urlProtectionSpace,
                                   proposedCredential: proposedCredential?.urlCredential,
                                   previousFailureCount: previousFailureCount,
                                   failureResponse: failureResponse?.urlResponse, error: nil,
                                   sender: IgnoringChallengeSender())
    }
}

extension AuthChallengeDisposition {
    init(_ d: URLSession.AuthChallengeDisposition) {
        switch d {
        case .useCredential: self = .useCredential
        case .cancelAuthenticationChallenge: self = .cancelAuthenticationChallenge
        case .rejectProtectionSpace: self = .rejectProtectionSpace
        default: self = .performDefaultHandling
        }
    }
}

/// Foundation's metrics object with TransferKit's figures. corelibs' `URLSessionTaskMetrics`
/// can be made and subclassed, but its properties cannot be set or overridden from outside
/// FoundationNetworking: `taskInterval`, `redirectCount` and `transactionMetrics` read as an
/// empty object's. Cast to this class for TransferKit's (DECISIONS 170).
public final class TransferURLSessionTaskMetrics: URLSessionTaskMetrics, @unchecked Sendable {
    // @unchecked: immutable.
    /// Every figure TransferKit measured: the task interval, redirects, and one
    /// `TransactionMetrics` per hop (phase dates, addresses, TLS, byte counts).
    public let transferMetrics: TaskMetrics

    init(_ metrics: TaskMetrics) {
        transferMetrics = metrics
        super.init()
    }

    /// Apple's `taskInterval`, which corelibs does not let a subclass answer.
    public var transferTaskInterval: DateInterval {
        let start = transferMetrics.taskIntervalStart
        return DateInterval(start: start, end: max(start, transferMetrics.taskIntervalEnd ?? start))
    }
}

extension TransferCookie {
    /// A cookie of Foundation's `HTTPCookieStorage` (a Domain cookie is one with a leading dot).
    init(_ c: HTTPCookie) {
        let hostOnly = !c.domain.hasPrefix(".")
        self.init(name: c.name, value: c.value, domain: c.domain, path: c.path, isHostOnly: hostOnly,
                  isSecure: c.isSecure, isHTTPOnly: c.isHTTPOnly, expires: c.expiresDate?.timeIntervalSince1970)
    }
}
