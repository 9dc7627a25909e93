/// How a completed task ended, in the words the monitor's RESULT column uses: `ok`,
/// `HTTP 404` (a response with an error status is not a success, though no transfer error
/// happened), `cancelled`, or `error: CODE`. The completion event's detail, so the event log
/// and the table never disagree.
public enum TaskOutcome {
    public static func text(error: TransferError?, statusCode: Int?) -> String {
        if let error { return error.code == .cancelled ? "cancelled" : "error: \(error.code)" }
        if let statusCode, statusCode >= 400 { return "HTTP \(statusCode)" }
        return "ok"
    }
}
