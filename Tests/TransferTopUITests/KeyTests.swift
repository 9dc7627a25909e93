import Foundation
import MonitorFixtures
import Testing
@testable import TransferTopUI

@Suite struct KeyTests {
    @Test func tableCoversEveryActionOnce() {
        #expect(ActionTable.entries.map(\.action) .sorted { $0.rawValue < $1.rawValue } == Action.allCases.sorted { $0.rawValue < $1.rawValue })
        let keys = ActionTable.entries.flatMap(\.defaultKeys)
        #expect(Set(keys).count == keys.count, "a default key is bound twice")
    }

    @Test func specDefaults() {
        let b = KeyBindings.defaults
        let expected: [(Key, Action)] = [
            (.up, .selectUp), (.char("k"), .selectUp), (.down, .selectDown), (.char("j"), .selectDown),
            (.tab, .nextPane), (.enter, .toggleDetail), (.char("s"), .suspend), (.char("r"), .resume),
            (.char("c"), .cancel), (.char("d"), .cancelWithResumeData), (.char("R"), .resumeFromResumeData),
            (.char("f"), .finishAndInvalidate), (.char("X"), .invalidateAndCancel), (.char("n"), .newTask),
            (.char("N"), .newSession), (.char("e"), .exportCSV), (.char("t"), .nextTheme), (.char("/"), .filter),
            (.char("?"), .help), (.char("q"), .quit),
        ]
        for (key, action) in expected { #expect(b.action(for: key) == action, "\(key)") }
    }

    @Test func keyNamesRoundTrip() {
        for key: Key in [.up, .pageDown, .char("x"), .char(" "), .char("#"), .ctrl("c"), .function(5), .enter, .escape] {
            #expect(Key(name: key.description) == key)
        }
        #expect(Key(name: "C-x") == .ctrl("x"))
        #expect(Key(name: "f13") == nil)
        #expect(Key(name: "nope") == nil)
    }

    @Test func bindingFile() throws {
        let b = try KeyBindingParser.parse("""
            # my keys
            x = "cancel"          # x cancels too
              space = "toggle-detail"
            c = "none"
            ctrl-q = "quit"
            "#" = "help"
            """, file: "keys.toml")
        #expect(b.action(for: .char("x")) == .cancel)
        #expect(b.action(for: .char(" ")) == .toggleDetail)
        #expect(b.action(for: .char("c")) == nil)
        #expect(b.action(for: .ctrl("q")) == .quit)
        #expect(b.action(for: .char("q")) == .quit)  // defaults stay unless rebound
        #expect(b.action(for: .char("#")) == .help)
        #expect(b.keys(for: .cancel) == [.function(9), .char("x")])  // F9 is a default too (htop)
        let none: (String) -> Bool = { _ in false }
        #expect(KeyBindingParser.configPath(environment: ["HOME": "/h"], exists: none) == "/h/.config/transfertop/keys.toml")
        #expect(KeyBindingParser.configPath(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"], exists: none) == "/x/transfertop/keys.toml")
        #expect(KeyBindingParser.configPath(environment: [:], exists: none) == nil)
        // The file's name before it was TOML is read when it is the only one there.
        #expect(KeyBindingParser.configPath(environment: ["HOME": "/h"], exists: { $0.hasSuffix(".conf") }) == "/h/.config/transfertop/keys.conf")
        #expect(KeyBindingParser.configPath(environment: ["HOME": "/h"], exists: { _ in true }) == "/h/.config/transfertop/keys.toml")
    }

    @Test(arguments: [
        ("x \"cancel\"", 1, "not valid TOML"),
        ("x = cancel", 1, "not valid TOML"),
        ("# ok\nbogus-key = \"quit\"", 2, "unknown key `bogus-key`"),
        ("x = \"cancle\"", 1, "unknown action `cancle` (actions: select-up,"),
        ("a = \"quit\"\n\nx = 3", 3, "the action for `x` must be a string, got an integer"),
    ])
    func bindingErrors(text: String, line: Int, message: String) {
        #expect {
            try KeyBindingParser.parse(text, file: "keys.toml")
        } throws: { error in
            guard let e = error as? KeyBindingError else { return false }
            return e.line == line && e.description.hasPrefix("keys.toml:\(line): ") && e.description.contains(message)
                && e.description.contains("expected TOML `key = \"action-name\"`")
        }
    }

    @Test func helpScreenGolden() throws {
        let text = HelpScreen.lines(bindings: .defaults).map { $0.map(\.text).joined() }
        Golden.check(text.map { $0.replacingOccurrences(of: " +$", with: "", options: .regularExpression) }.joined(separator: "\n"), "help")
        var custom = KeyBindings.defaults
        custom.bind(.char("x"), to: .cancel)
        custom.bind(.char("c"), to: nil)
        let row = HelpScreen.lines(bindings: custom).map { $0.map(\.text).joined() }.first { $0.contains(" cancel ") }
        #expect(row?.hasPrefix("  f9 x ") == true)
    }

    @Test func helpOverlayGolden() {
        var m = Fixtures.model(width: 80, height: 24)
        m.helpShown = true
        Golden.check(ScreenRenderer.render(m).render(), "screen-80x24-help")
        (m, _) = Reducer.handleKey(m, .pageDown)
        #expect(m.helpShown && m.helpScroll > 0)
        #expect(ScreenRenderer.render(m).render().contains("quit (downloads keep resume data)"))
        (m, _) = Reducer.handleKey(m, .char("x"))
        #expect(!m.helpShown)
    }
}
