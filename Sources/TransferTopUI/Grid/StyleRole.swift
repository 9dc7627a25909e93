/// What a cell *means*, never what colour it is: widgets ask for a role and a theme
/// maps roles to colours, so a new theme never touches drawing code.
///
/// The raw value is the key used in `.theme` files.
public enum StyleRole: String, Sendable, Equatable, Hashable, CaseIterable, Codable {
    case text, dim, header, border, title, selection, statusLine, keyHint, error, logText
    case stateQueued, stateRunning, stateSuspended, stateCanceling, stateCompleted, stateFailed, stateCancelled
    case barFill, barEmpty, barIndeterminate, barError
    case phaseQueued, phaseDNS, phaseConnect, phaseTLS, phaseRequest, phaseWait, phaseReceive
    case phaseMark, secret, httpSuccess, httpRedirect, httpError

    /// Position in `allCases`, for array-backed lookups in the hot drawing path.
    public var index: Int {
        // allCases is in declaration order; this switch-free lookup is built once.
        StyleRole.indices[self]!
    }

    private static let indices: [StyleRole: Int] = Dictionary(
        uniqueKeysWithValues: allCases.enumerated().map { ($1, $0) })
}
