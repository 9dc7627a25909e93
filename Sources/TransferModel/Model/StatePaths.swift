import Foundation

/// Where TransferKit (and the background daemon) keep persistent state: `$XDG_STATE_HOME/transfertop` (or
/// `~/.local/state/transfertop`) unless the configuration names a directory.
public enum StatePaths {
    public static func stateDirectory(_ configured: String?,
                                      environment env: [String: String] = ProcessEnvironment.current()) -> String? {
        if let configured { return configured }
        if let x = env["XDG_STATE_HOME"], !x.isEmpty { return x + "/transfertop" }
        if let home = env["HOME"], !home.isEmpty { return home + "/.local/state/transfertop" }
        return nil
    }
}
