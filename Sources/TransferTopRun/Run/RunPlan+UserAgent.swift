import TransferKit

extension RunPlan {
    /// Every session sends a User-Agent, as curl does: `-A TEXT`, or by default
    /// `transfertop/VERSION libcurl/X.Y.Z`; `-A ''` sends none. A session's own
    /// `User-Agent` header (`-H`, a job file's `headers`) wins. Set here, by the program,
    /// not in TransferKit: a library user's requests carry only the headers they give.
    package mutating func applyUserAgent(_ given: String?) {
        let agent = given ?? VersionInfo.userAgent
        guard !agent.isEmpty else { return }
        for i in sessions.indices where sessions[i].headers.first(named: "User-Agent") == nil {
            sessions[i].headers.append(HTTPHeader("User-Agent", agent))
        }
    }
}
