import Foundation
import Testing

/// `scripts/install PREFIX` puts every file where its tool looks for it. The build step is
/// stubbed (`SWIFT=` a script that builds nothing and names the directory of the binary these
/// tests run), so the layout and the completion scripts are those of the real binary.
@Suite struct InstallScriptTests {
    @Test func installsBinaryManPageCompletionsAndThemes() async throws {
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let binary = try #require(Binary.path)
        let stub = dir + "/swift"
        // Written here, then copied into place by `cp`: a file this process wrote is open for
        // writing in any child another test forks meanwhile, and exec of it fails with "Text
        // file busy" (a TSan run in CI). The copy's only writer is `cp`, gone when it exits.
        try "#!/bin/sh\ncase \"$*\" in *--show-bin-path*) echo '\((binary as NSString).deletingLastPathComponent)';; esac\n"
            .write(toFile: stub + ".src", atomically: false, encoding: .utf8)
        let copied = try await Run.spawn([stub + ".src", stub], environment: [:], executable: "/bin/cp").wait()
        try #require(copied.status == 0, "cp: \(copied.stderr)")
        chmod(stub, 0o755)
        let script = Golden.packageRoot.appendingPathComponent("scripts/install").path
        let r = try await Run.spawn([dir + "/prefix"], environment: ["SWIFT": stub], executable: script).wait()
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        let share = dir + "/prefix/share/"
        for file in ["../bin/transfertop", "man/man1/transfertop.1", "bash-completion/completions/transfertop",
                     "zsh/site-functions/_transfertop", "fish/vendor_completions.d/transfertop.fish",
                     "transfertop/themes/default.toml"] {
            let attributes = try? FileManager.default.attributesOfItem(atPath: share + file)
            #expect((attributes?[.size] as? Int ?? 0) > 0, "\(file) missing or empty")
        }
        #expect(FileManager.default.isExecutableFile(atPath: dir + "/prefix/bin/transfertop"))
        // Installed stripped: smaller than the binary it was built as, and it still runs (the
        // completion scripts above came from it).
        let built = try FileManager.default.attributesOfItem(atPath: binary)[.size] as? Int ?? 0
        let installed = try FileManager.default.attributesOfItem(atPath: dir + "/prefix/bin/transfertop")[.size] as? Int ?? 0
        #expect(installed > 0 && installed < built, "installed \(installed) bytes, built \(built)")
        #expect(r.stdout.contains("installed transfertop "), "\(r.stdout)")
        #expect(try String(contentsOfFile: share + "zsh/site-functions/_transfertop", encoding: .utf8).hasPrefix("#compdef transfertop"))
        // The daemon's user unit runs the installed binary.
        let unit = try String(contentsOfFile: dir + "/prefix/lib/systemd/user/transfertop.service", encoding: .utf8)
        #expect(unit.contains("ExecStart=\(dir)/prefix/bin/transfertop daemon run"), "\(unit)")
    }
}
