import Foundation

extension MonitorModel {
    /// How long a status message stays (a message that stayed until esc would be stale).
    public static let statusLifetime: TimeInterval = 8

    /// Clears the status message once it has been shown unchanged for `statusLifetime`;
    /// called once a frame after `now` is set. A question (`confirmation`) never expires.
    public mutating func expireStatusMessage() {
        if statusMessage != statusShown.text {
            statusShown = (statusMessage, now)
        } else if statusMessage != nil, now.timeIntervalSince(statusShown.since) > Self.statusLifetime {
            statusMessage = nil
            statusShown = (nil, now)
        }
    }
}
