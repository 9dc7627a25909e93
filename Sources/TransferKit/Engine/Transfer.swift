import CCurl
import Foundation
import TransferModel

/// The transfer thread's record of one running task: its easy handle, the response being
/// parsed, where the body goes, flow control and timers. Lives and dies on the transfer
/// thread; never shared.
final class Transfer {
    /// Reassigned once, when a data task becomes a download task.
    var task: TransferTask
    unowned let engine: TransferEngine
    /// A new or reset handle has no speed limit: the next `rebalanceRates` sets it.
    /// A new hop's handle starts with no limit and no pause: `rebalanceRates` gives it the
    /// current one when it joins the multi (a guard left from the last hop could pause it at a
    /// limit lifted meanwhile, with nothing left to unpause it).
    var easy: EasyHandle {
        didSet {
            appliedRateLimit = 0
            rateGuard = RateGuard()
            ratePaused = false
        }
    }
    /// The limit it has now (0: none): `MAX_SEND_SPEED_LARGE` on the handle for what it
    /// sends, `rateGuard` for what it receives (TransferEngine+Limits.swift).
    var appliedRateLimit: Int64 = 0
    /// The task's own limit (0: none), from its `rateLimit` when it started and from each
    /// change since; the session's limit may give it less (RateShares).
    var ownRateLimit: Int64 = 0
    var rateGuard = RateGuard()
    /// The write callback paused it for `rateGuard`; the timer scan lets it go on.
    var ratePaused = false
    var request: TransferRequest
    /// This hop's scheme (set up by `makeEasy`): http(s) parse a status line and headers; the
    /// others get a response made from what libcurl knows (TransferEngine+Schemes).
    var scheme: URLScheme = .http
    /// What libcurl fetches: the request URL, or for `data:` the file holding its bytes.
    var curlURL = ""
    var dataSource: DataURLSource?
    /// When a file or data: copy last published its progress from inside the copy.
    var lastLocalPublish: UInt64 = 0
    /// 0 for the first request, +1 per further request (redirect or resume restart).
    var hop = 0
    /// Redirects followed (a resume restart is a new hop but not a redirect).
    var redirects = 0

    // Response head of the current hop, parsed line by line in the header callback.
    var statusCode = 0
    var responseHeaders: [HTTPHeader] = []
    /// The request/response life cycle across hops, with the delegate's decisions between
    /// them (Machines/Exchange.swift).
    var exchange = Exchange()
    /// 1xx heads of this hop: a server that floods them is named as such (`ServerFault`).
    var informationalHeads = 0
    var response: TransferResponse?
    /// The body of a head kept aside (`Exchange.Aside`, small) in case it becomes the answer.
    var redirectBody = Data()

    /// The HTTP cache's part in this task (TransferEngine+Cache.swift), and the body copied
    /// for storing.
    var cache: CacheUse = .none
    var cacheCapture: Data?

    // Where the body goes.
    enum Sink {
        case collect, delegate, file

        /// A download's body goes to a file; a data task's to its data delegate, unless it
        /// has a completion handler (or no data delegate): then it is collected in memory.
        static func of(_ task: TransferTask) -> Sink {
            if task.kind == .download { return .file }
            let hasHandler = task.core.withLock { $0.completion != nil }
            return hasHandler || !(task.session.delegate is any TransferDataDelegate) ? .collect : .delegate
        }
    }
    var sink: Sink
    var collected = Data()
    var pending = Data()
    var fileDescriptor: Int32 = -1
    var fileURL: URL?
    /// Body bytes stored: in the file, plus those still in `smallBody`.
    var fileOffset: Int64 = 0
    /// A download's first bytes, held until they outgrow `DownloadStorage.memoryLimit` (then
    /// the file is created) or the body ends (then it is written once): a small file costs one
    /// create and one write, and a task that fails before its body makes no file at all.
    var smallBody = Data()
    var sinkFailure: TransferError?
    /// The configuration's size limits, read once: the body callback checks them for every
    /// chunk (Transfer+BodySize).
    lazy var bodySizeLimit = BodySizeLimit(maximum: engine.configuration.maximumContentLength,
                                           ratio: engine.configuration.maximumDecodedRatio)
    /// The errno of a failed write to the download file (0: none), for the advice the
    /// failure ends with.
    var writeErrno: Int32 = 0

    /// Where the handle is and whether bytes may move: suspend, resume and the pauses that
    /// bound memory (Machines/FlowControl.swift).
    var flow = FlowControl()
    /// Whether this hop's connection sat idle under a suspend, and so whether its failure after
    /// the resume continues from resume data (Machines/HeldConnection.swift).
    var heldConnection = HeldConnection()
    /// Whether a request that met a closed kept-alive connection has been sent again
    /// (Machines/StaleConnectionRetry.swift).
    var staleConnection = StaleConnectionRetry()
    /// The host key of this hop's URL, made with its handle (`makeEasy`, always while
    /// detached); while in the multi, the one it is counted under.
    var hostKey: String?
    /// The socket of a connection this transfer opened (the sockopt callback); -1 on a reused
    /// one. Read for the connection's round trip (`DistantHosts.noteRoundTrip`).
    var newConnectionSocket: Int32 = -1
    /// Body bytes held for the data delegate's disposition.
    var held = Data()
    /// Chunks handed to the data delegate and not yet consumed (shared with the delegate
    /// queue). Past `highWater` the transfer pauses so a slow delegate bounds memory.
    let chunksInFlight = Locked(0)
    /// Authentication (SessionCredentials.swift): the credential a challenge was answered
    /// with and the space it answers (`credentialSpace`: its origin, or the proxy), the one
    /// this hop sent, the 401/407 held for the delegate, how many credentials were refused,
    /// and one to store once it worked.
    var credential: TransferCredential?
    var credentialSpace: ProtectionSpace?
    var sentCredential: TransferCredential?
    var authFailures = 0
    var credentialToStore: (TransferCredential, ProtectionSpace)?
    /// Server trust (TransferEngine+ServerTrust.swift): the hop runs on a trust exception
    /// (verification off, pinned to the key the delegate trusted).
    var usesTrustException = false
    /// False once a redirect turned the request into a body-less GET.
    var hasBodyThisHop = true

    // Upload.
    var uploadOffset: Int64 = 0
    var uploadFD: Int32 = -1
    /// A multipart body's reader (its files open while the transfer lives).
    var uploadSegments: SegmentedBody?
    /// A streamed body's pump (the delegate gives a stream per hop: `Exchange.Stage`).
    var bodyPump: BodyStreamPump?

    // Accounting and timers (monotonic ns).
    /// The loop turn this transfer was last listed in `engine.touched` for (`touch`).
    var touchedTurn: UInt64 = 0
    var hopReceived: Int64 = 0
    var hopSent: Int64 = 0
    var totalReceivedBeforeHop: Int64 = 0
    /// What the task's counters and the observers were last told (Machines/ProgressLedger.swift).
    var progress = ProgressLedger()
    var taskStart: UInt64
    var lastActivity: UInt64
    var hopStart: UInt64
    /// When the hop left libcurl's per-host queue (resolver, socket or prereq callback ran).
    var dequeuedAt: UInt64?
    var prereqAt: UInt64?
    /// Whether the live record has this hop's DNS, connect and TLS yet (`updateLivePhase`).
    var liveConnection: LiveConnection = .undated
    var firstHeaderAt: UInt64?
    var lastByteAt: UInt64?
    var lastBodySentAt: UInt64?
    var tls: TLSFacts?
    /// The request head as libcurl reports it, which may come in pieces (a partial send):
    /// parsed once it is whole (RequestTrace.swift).
    var headOut = ""
    // Resume support.
    /// The offset this hop's body starts at in the file.
    var resumeOffset: Int64 = 0
    /// The resume data the task continues from (the task's own, or what a dead connection
    /// after a resume left, `TransferEngine+Continuation`), and the hop that sent its range:
    /// until that hop's answer comes, the partial file is as the data says.
    var resumeFrom: ResumeData?
    var resumeFromHop = 0
    /// `waitsForConnectivity`: failed connection attempts so far, and when the next one starts
    /// (timer clock).
    var connectivityRetries = 0
    var connectivityRetryAt: UInt64 = 0
    /// A multipart/x-mixed-replace body split into parts for the delegate.
    var multipart: MultipartDelivery?

    init(task: TransferTask, engine: TransferEngine, easy: EasyHandle, sink: Sink) {
        self.task = task
        self.engine = engine
        self.easy = easy
        self.request = task.currentRequest
        self.sink = sink
        resumeFrom = task.resumeFrom
        // HEAD is sent without a body even when the request has one, as Foundation sends it;
        // an upload would make libcurl wait for a response body that never comes.
        hasBodyThisHop = request.httpMethod.uppercased() != "HEAD"
        spares = engine.spareHandles
        let now = Monotonic.now()
        taskStart = now
        lastActivity = now
        hopStart = now
    }

    /// Where the handle goes when the transfer does (`SpareHandles`).
    let spares: SpareHandles

    deinit {
        // Out of the multi: its handle may serve the next transfer. (One still in the multi is
        // cleaned up, which also removes it.)
        if !flow.isInMulti { spares.put(easy) }
        if fileDescriptor >= 0 { close(fileDescriptor) }
        if uploadFD >= 0 { close(uploadFD) }
        bodyPump?.stop()
    }

    var opaque: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static func from(_ p: UnsafeMutableRawPointer?) -> Transfer {
        Unmanaged<Transfer>.fromOpaque(p!).takeUnretainedValue()
    }

    /// Resets per-hop state before the next request of a redirect chain.
    func beginHop(_ next: TransferRequest, easy: EasyHandle) {
        totalReceivedBeforeHop += hopReceived
        request = next
        self.easy = easy
        hostKey = nil  // the next hop may go to another host (called only once detached)
        hop += 1
        statusCode = 0
        responseHeaders = []
        exchange.nextHop()
        heldConnection.hopBegan()
        informationalHeads = 0
        response = nil
        redirectBody = Data()
        newConnectionSocket = -1
        hopReceived = 0
        hopStart = Monotonic.now()
        lastActivity = hopStart
        dequeuedAt = nil
        prereqAt = nil
        liveConnection = .undated
        firstHeaderAt = nil
        lastByteAt = nil
        lastBodySentAt = nil
        tls = nil
        uploadOffset = 0
    }

    /// Bytes of body received by the task across hops (kept-aside bodies are not counted in
    /// `hopReceived`).
    var totalReceived: Int64 { totalReceivedBeforeHop + hopReceived }
}

/// The HTTP cache's part in a task, decided before its first hop (`CacheRules.decide`).
enum CacheUse {
    case none
    /// A fresh stored response is the answer: no request is sent.
    case serveStored(CachedResponse)
    /// The first hop sends the stored response's validators.
    case revalidating(CachedResponse)
    /// A 304 came: the answer is the stored response, its headers updated.
    case revalidated(CachedResponse)
}

/// A running hop's connection phases in the live transaction record.
enum LiveConnection { case undated, dated }
