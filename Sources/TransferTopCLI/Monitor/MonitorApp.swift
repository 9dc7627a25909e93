import Foundation

/// The ncurses monitor (SPEC T1-T5).
public enum MonitorApp {
    public static func run(_ runner: Runner, options: Options, environment: [String: String], stayUntilQuit: Bool) async -> Int32 {
        await LineMode.run(runner, environment: environment)
    }
}
