import Foundation
import TransferModel

/// The phases a waterfall draws, in wire order.
public enum WaterfallPhase: String, Sendable, Equatable, CaseIterable {
    case queued, dns, connect, tls, request, wait, receive

    public var role: StyleRole {
        switch self {
        case .queued: return .phaseQueued
        case .dns: return .phaseDNS
        case .connect: return .phaseConnect
        case .tls: return .phaseTLS
        case .request: return .phaseRequest
        case .wait: return .phaseWait
        case .receive: return .phaseReceive
        }
    }

    /// Short label used beside the bar: `dns 12ms`.
    public var label: String {
        switch self {
        case .queued: return "queue"
        case .dns: return "dns"
        case .connect: return "tcp"
        case .tls: return "tls"
        case .request: return "req"
        case .wait: return "wait"
        case .receive: return "recv"
        }
    }

    /// The engine's phase that corresponds, to mark the one a live hop is in.
    init?(_ phase: TransactionPhase) {
        switch phase {
        case .queued: self = .queued
        case .dns: self = .dns
        case .connect: self = .connect
        case .tls: self = .tls
        case .request: self = .request
        case .wait: self = .wait
        case .receive: self = .receive
        case .done: return nil
        }
    }
}

/// One drawn phase of a hop: offsets in ms from the start of the task's interval.
public struct WaterfallSegment: Sendable, Equatable {
    public var phase: WaterfallPhase
    public var startMs: Double
    public var endMs: Double
    /// Still going: its end is "now".
    public var isRunning: Bool
    /// The phase the hop failed in: it ends where the hop ended.
    public var isFailed: Bool

    public init(phase: WaterfallPhase, startMs: Double, endMs: Double, isRunning: Bool = false, isFailed: Bool = false) {
        self.phase = phase
        self.startMs = startMs
        self.endMs = endMs
        self.isRunning = isRunning
        self.isFailed = isFailed
    }

    public var durationMs: Double { Swift.max(0, endMs - startMs) }
}

/// One hop (transaction) ready to draw.
public struct WaterfallHop: Sendable, Equatable {
    public var label: String
    public var segments: [WaterfallSegment]
    /// DNS and connect absent because the connection was reused.
    public var isReused: Bool
    /// The phase a running hop is in; nil once it is done.
    public var currentPhase: WaterfallPhase?
    public var failed: Bool
    /// The phase it failed in (`TransactionMetrics.failedPhase`), nil when none.
    public var failedPhase: WaterfallPhase?

    public init(label: String, segments: [WaterfallSegment], isReused: Bool, currentPhase: WaterfallPhase?, failed: Bool,
                failedPhase: WaterfallPhase? = nil) {
        self.label = label
        self.segments = segments
        self.isReused = isReused
        self.currentPhase = currentPhase
        self.failed = failed
        self.failedPhase = failedPhase
    }
}
