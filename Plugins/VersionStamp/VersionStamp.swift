import Foundation
import PackagePlugin

/// Stamps the version into TransferTopRun at build time (`transfertop --version`, the
/// User-Agent): `scripts/version-stamp` writes `BuildVersion.swift` from `git describe`, or a
/// `VERSION` file in a tarball without `.git`, or "unknown". A prebuild command: SwiftPM runs it
/// when it plans a build, and reuses the plan (and the stamp) while the manifest is unchanged,
/// so `scripts/release-build` and `scripts/test` bring the stamp up to date themselves
/// (`scripts/refresh-version-stamp`). The script rewrites the file only when the version
/// changed, so an unchanged version recompiles nothing. DECISIONS 36.
@main
struct VersionStamp: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "Generated")
        let package = context.package.directoryURL
        return [.prebuildCommand(
            displayName: "Stamping the transfertop version",
            executable: URL(fileURLWithPath: "/bin/sh"),
            arguments: [package.appending(path: "scripts/version-stamp").path, package.path, output.path],
            outputFilesDirectory: output)]
    }
}
