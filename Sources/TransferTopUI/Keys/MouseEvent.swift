/// A mouse event as the backend decodes it: what happened and where, in screen
/// cells from the top left. The terminal part (mousemask, KEY_MOUSE, getmouse) stays in the
/// CLI's curses screen; what an event means is `Reducer.handleMouse`, pure and testable.
public struct MouseEvent: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The left button went down.
        case click
        /// The wheel turned away from the user (scrolls up) or towards the user (down).
        case wheelUp, wheelDown
    }

    public var kind: Kind
    public var column: Int
    public var row: Int

    public init(_ kind: Kind, column: Int, row: Int) {
        self.kind = kind
        self.column = column
        self.row = row
    }

    /// Rows one wheel notch moves, as most terminal programs (less, htop, vim) do.
    public static let wheelStep = 3
}
