import Foundation
import Testing
@testable import TransferTopUI

@Suite struct ThemeTests {
    static let repoThemes = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("themes")

    static func read(_ name: String) -> String {
        (try? String(contentsOf: repoThemes.appendingPathComponent(name + ".toml"), encoding: .utf8)) ?? ""
    }

    @Test(arguments: ["default", "light", "high-contrast", "monochrome"])
    func shippedThemesParse(name: String) throws {
        let text = Self.read(name)
        #expect(!text.isEmpty)
        let theme = try ThemeParser.parse(text, file: "themes/\(name).toml", base: nil)
        #expect(theme.name == name)
        // Every shipped theme names every role itself, so none silently inherits a dark colour.
        #expect(Set(theme.styles.keys) == Set(StyleRole.allCases))
    }

    @Test func builtInDefaultIsTheDefaultThemeFile() {
        #expect(BuiltInThemes.defaultText == Self.read("default"))
        #expect(Theme.builtInDefault.styles.count == StyleRole.allCases.count)
        #expect(Theme.builtInDefault[.stateRunning] == ThemeStyle(.rgb(0x50, 0xfa, 0x7b), on: .default, [.bold]))
    }

    @Test func defaultThemeCommentsEveryRole() {
        // The default theme doubles as the documented list of keys.
        let text = Self.read("default")
        for role in StyleRole.allCases { #expect(text.contains("\n\(role.rawValue) = "), "\(role) missing") }
    }

    @Test func valueSyntax() throws {
        let theme = try ThemeParser.parse("""
            # a comment
            text = "default"   # trailing comment
            dim = "245 dim"
            header = "black on bright-white bold underline"
            selection = "fg #112233, bg 17 reverse"
            error = 'BrightRed'
            logText = 208
            title = { fg = "#50fa7b", bg = 17, bold = true, underline = false }
            """, file: "t.toml", base: nil)
        #expect(theme[.text] == ThemeStyle())
        #expect(theme[.dim] == ThemeStyle(.indexed(245), on: .default, [.dim]))
        #expect(theme[.header] == ThemeStyle(.ansi(0), on: .ansi(15), [.bold, .underline]))
        #expect(theme[.selection] == ThemeStyle(.rgb(0x11, 0x22, 0x33), on: .indexed(17), [.reverse]))
        #expect(theme[.error] == ThemeStyle(.ansi(9)))
        #expect(theme[.logText] == ThemeStyle(.indexed(208)))
        #expect(theme[.title] == ThemeStyle(.rgb(0x50, 0xfa, 0x7b), on: .indexed(17), [.bold]))
        #expect(theme.styles.count == 7)
    }

    @Test func omittedRolesComeFromTheDefault() throws {
        let theme = try ThemeParser.parse("text = \"red\"\n", file: "partial.toml")
        #expect(theme[.text] == ThemeStyle(.ansi(1)))
        #expect(theme[.barFill] == Theme.builtInDefault[.barFill])
    }

    /// Invalid fixtures: the error names file and line, says what is wrong, and teaches the format.
    @Test(arguments: [
        ("bad-colour.toml", "text = \"#f8f8f2\"\nbarFill = \"#12345\"\n", 2, "bad colour or attribute `#12345`"),
        ("missing-equals.toml", "# header\n\nstateRunning \"#50fa7b\"\n", 3, "not valid TOML"),
        ("unknown-role.toml", "text = \"red\"\nstateRuning = \"green\"\n", 2, "unknown role `stateRuning` (did you mean `stateRunning`?)"),
        ("empty-value.toml", "dim = \"\"\n", 1, "no colour given for `dim`"),
        ("dangling-on.toml", "header = \"white on\"\n", 1, "`on` must be followed by a colour"),
        ("index-range.toml", "text = 256\n", 1, "bad colour `256`"),
        ("two-colours.toml", "text = \"red green\"\n", 1, "bad colour or attribute `green`"),
        ("unquoted-old-format.theme", "text = #f8f8f2\n", 1, "not valid TOML"),
        ("wrong-type.toml", "# x\ntext = true\n", 2, "must be a string, a colour index or an inline table, got a boolean"),
        ("table-field.toml", "text = \"red\"\nheader = { fg = \"red\", blink = true }\n", 2, "unknown style field `blink` in `header`"),
        ("table-bool.toml", "header = { bold = \"yes\" }\n", 1, "`header.bold` must be true or false"),
        ("duplicate-role.toml", "text = \"red\"\ntext = \"blue\"\n", 2, "not valid TOML"),
        ("nul.toml", "text = \"red\"\n\0\n", 2, "NUL byte"),
        ("table-header.toml", "text = \"red\"\n\n[roles]\ndim = \"red\"\n", 3, "unknown role `roles`"),
    ])
    func invalidThemes(file: String, text: String, line: Int, message: String) {
        #expect {
            try ThemeParser.parse(text, file: file)
        } throws: { error in
            guard let e = error as? ThemeError else { return false }
            let d = e.description
            return e.file == file && e.line == line && d.contains(message) && d.hasPrefix("\(file):\(line): ")
                && d.contains("expected TOML `role = \"colour [on colour]")
        }
    }

    @Test func colourNames() {
        #expect(ThemeColor(parsing: "bright-black") == .ansi(8))
        #expect(ThemeColor(parsing: "brightwhite") == .ansi(15))
        #expect(ThemeColor(parsing: "#ABCDEF") == .rgb(0xab, 0xcd, 0xef))
        #expect(ThemeColor(parsing: "0") == .indexed(0))
        #expect(ThemeColor(parsing: "-1") == nil)
        #expect(ThemeColor(parsing: "#abc") == nil)
        #expect(ThemeColor(parsing: "purple") == nil)
    }

    @Test func colourFallback() {
        let c = ThemeColor.rgb(0x50, 0xfa, 0x7b)
        #expect(ColorFallback.resolve(c, depth: .truecolor) == .rgb(0x50, 0xfa, 0x7b))
        #expect(ColorFallback.resolve(c, depth: .xterm256) == .index(84))  // #5fff87
        #expect(ColorFallback.resolve(c, depth: .ansi16) == .index(10))  // bright green
        #expect(ColorFallback.resolve(c, depth: .none) == .default)
        #expect(ColorFallback.nearest256(0, 0, 0) == 16)
        #expect(ColorFallback.nearest256(255, 255, 255) == 231)
        #expect(ColorFallback.nearest256(0x80, 0x80, 0x80) == 244)  // grey ramp beats the cube
        #expect(ColorFallback.nearest256(0xff, 0x00, 0x00) == 196)
        #expect(ColorFallback.resolve(.indexed(196), depth: .ansi16) == .index(9))
        #expect(ColorFallback.resolve(.indexed(3), depth: .ansi16) == .index(3))
        #expect(ColorFallback.resolve(.ansi(12), depth: .xterm256) == .index(12))
        #expect(ColorFallback.resolve(.default, depth: .truecolor) == .default)
    }

    @Test func noColorForcesNone() {
        #expect(ColorDepth.effective(supported: .truecolor, environment: ["NO_COLOR": "1"]) == .none)
        #expect(ColorDepth.effective(supported: .truecolor, environment: ["NO_COLOR": ""]) == .truecolor)
        #expect(ColorDepth.detect(environment: ["COLORTERM": "truecolor"], terminfoColors: 8) == .truecolor)
        #expect(ColorDepth.detect(environment: ["TERM": "xterm-256color"], terminfoColors: 8) == .xterm256)
        #expect(ColorDepth.detect(environment: [:], terminfoColors: 8) == .ansi16)
        #expect(ColorDepth.detect(environment: [:], terminfoColors: 0) == .none)
        let resolved = Theme.builtInDefault.resolved(depth: .none)
        #expect(resolved[.stateRunning] == ResolvedStyle(attributes: [.bold]))
        #expect(resolved.styles.count == StyleRole.allCases.count)
    }

    @Test func lookupOrder() {
        let dirs: Set<String> = ["/src/repo/themes", "/home/u/cfg/transfertop/themes"]
        let locator = ThemeLocator(environment: ["XDG_CONFIG_HOME": "/home/u/cfg", "HOME": "/home/u"],
                                   executablePath: "/src/repo/.build/debug/transfertop",
                                   currentDirectory: "/src/repo/docs", isDirectory: { dirs.contains($0) })
        #expect(locator.searchDirectories() == [
            "/home/u/cfg/transfertop/themes", "/src/repo/.build/share/transfertop/themes", "/src/repo/themes",
        ])
        #expect(locator.candidates(for: "light").prefix(3) == [
            "/home/u/cfg/transfertop/themes/light.toml", "/home/u/cfg/transfertop/themes/light.theme",
            "/src/repo/.build/share/transfertop/themes/light.toml",
        ])
        #expect(locator.candidates(for: "./my.theme") == ["./my.theme"])
        #expect(locator.candidates(for: "my.toml") == ["my.toml"])
        let noXDG = ThemeLocator(environment: ["HOME": "/h"], executablePath: "/usr/local/bin/transfertop",
                                 currentDirectory: "/", isDirectory: { _ in false })
        #expect(noXDG.searchDirectories() == ["/h/.config/transfertop/themes", "/usr/local/share/transfertop/themes"])
    }

    @Test func brokenOrMissingThemesFallBackToTheDefault() {
        let locator = ThemeLocator(environment: [:], executablePath: "/opt/tt/bin/transfertop", currentDirectory: nil,
                                   isDirectory: { _ in false })
        let files = ["/opt/tt/share/transfertop/themes/broken.toml": "text = \"red\"\noops\n",
                     "/opt/tt/share/transfertop/themes/light.toml": "text = \"blue\"\n",
                     "/opt/tt/share/transfertop/themes/old.theme": "text = \"green\"\n"]
        let broken = ThemeLoader.load("broken", locator: locator, readFile: { files[$0] })
        #expect(broken.theme == Theme.builtInDefault)
        #expect(broken.warning?.contains("/opt/tt/share/transfertop/themes/broken.toml:2: not valid TOML") == true)
        let light = ThemeLoader.load("light", locator: locator, readFile: { files[$0] })
        #expect(light.warning == nil)
        #expect(light.theme[.text] == ThemeStyle(.ansi(4)))
        #expect(ThemeLoader.load("old", locator: locator, readFile: { files[$0] }).theme[.text] == ThemeStyle(.ansi(2)))
        let missing = ThemeLoader.load("nope", locator: locator, readFile: { files[$0] })
        #expect(missing.warning?.hasPrefix("theme `nope` not found") == true)
        #expect(ThemeLoader.load("default", locator: locator, readFile: { _ in nil }).warning == nil)
        let names = ThemeLoader.availableNames(locator: ThemeLocator(environment: ["HOME": "/h"], executablePath: nil,
                                                                     currentDirectory: nil, isDirectory: { _ in true }),
                                               list: { _ in ["light.toml", "README", "default.toml", "old.theme", ".toml"] })
        #expect(names == ["default", "light", "old"])
    }
}
