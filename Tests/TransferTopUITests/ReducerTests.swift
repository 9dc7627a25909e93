import Foundation
import MonitorFixtures
import Testing
import TransferModel
@testable import TransferTopUI

/// The reducer as scripts: action in, effect and status line out, one line per step.
@Suite struct ReducerTests {
    func model(selecting id: TaskID) -> MonitorModel {
        var m = Fixtures.model(width: 80, height: 24)
        m.selectedTask = id
        return m
    }

    func run(_ id: TaskID, _ action: Action, resumeData: Bool = false) -> (Effect?, String?) {
        var m = model(selecting: id)
        if resumeData { m.resumeDataAvailable.insert(id) }
        let (after, effect) = Reducer.reduce(m, action)
        return (effect, after.statusMessage)
    }

    let running = TaskID(session: 1, task: 1)
    let suspended = TaskID(session: 1, task: 2)
    let doneData = TaskID(session: 1, task: 3)
    let canceling = TaskID(session: 2, task: 1)
    let failed = TaskID(session: 2, task: 3)
    let cancelled = TaskID(session: 3, task: 1)

    @Test func taskActionsThatApply() {
        #expect(run(running, .suspend).0 == .suspend(running))
        #expect(run(suspended, .resume).0 == .resume(suspended))
        #expect(run(running, .cancel).0 == .cancel(running))
        #expect(run(running, .cancelWithResumeData).0 == .cancelWithResumeData(running))
        #expect(run(cancelled, .resumeFromResumeData, resumeData: true).0 == .resumeFromResumeData(cancelled))
    }

    @Test func taskActionsThatDoNotSaySo() {
        let cases: [(TaskID, Action, String)] = [
            (doneData, .suspend, "task 1.3 has completed; there is nothing to suspend"),
            (suspended, .suspend, "task 1.2 is already suspended; press r to resume it"),
            (running, .resume, "task 1.1 is already running"),
            (failed, .resume, "task 2.3 has failed and cannot run again"),
            (canceling, .cancel, "task 2.1 is already being cancelled"),
            (doneData, .cancel, "task 1.3 has already completed"),
            (suspended, .cancelWithResumeData, "task 1.2 cannot be resumed later"),
            (doneData, .cancelWithResumeData, "task 1.3 has already completed"),
            (running, .resumeFromResumeData, "task 1.1 has not stopped; press d to cancel it with resume data first"),
            (cancelled, .resumeFromResumeData, "task 3.1 has no resume data (press d on a running download to keep some)"),
            (failed, .resumeFromResumeData, "task 2.3 has no resume data (only downloads have resume data)"),
        ]
        for (id, action, message) in cases {
            let (effect, status) = run(id, action)
            #expect(effect == nil, "\(action) on \(id)")
            #expect(status?.hasPrefix(message) == true, "\(action) on \(id): \(status ?? "nil")")
        }
        #expect(run(cancelled, .resume, resumeData: true).1 == "task 3.1 has been cancelled and cannot run again; press R to continue from its resume data")
    }

    @Test func dataTasksKeepNoResumeData() {
        var m = model(selecting: canceling)
        m.sessions[1].tasks[0].state = .running
        let (after, effect) = Reducer.reduce(m, .cancelWithResumeData)
        #expect(effect == nil)
        #expect(after.statusMessage == "only downloads can keep resume data; task 2.1 is a data task (press c to cancel)")
    }

    @Test func sessionActions() {
        var m = model(selecting: running)
        #expect(Reducer.reduce(m, .finishAndInvalidate).1 == .finishAndInvalidate(sessionID: 1))
        #expect(Reducer.reduce(m, .invalidateAndCancel).1 == .invalidateAndCancel(sessionID: 1))
        m.selectedTask = canceling
        let (a, e) = Reducer.reduce(m, .finishAndInvalidate)
        #expect(e == nil)
        #expect(a.statusMessage == "session 2 is already finishing its tasks; press X to cancel them")
        // Session 1 has a suspended task: finishing waits for it, and says so.
        #expect(Reducer.finishingMessage(m.sessions[0])
                == "session 1: finishing its tasks, then invalidating; 1 suspended task(s) keep it open until resumed (r) or cancelled (c)")
        #expect(Reducer.finishingMessage(m.sessions[1]) == "session 2: finishing its tasks, then invalidating")
        var held = m
        held.sessions[0].state = .invalidating
        held.selectedTask = running
        #expect(Reducer.reduce(held, .finishAndInvalidate).0.statusMessage
                == "session 1 is already finishing its tasks; 1 suspended task(s) keep it open until resumed (r) or cancelled (c); press X to cancel them")
        #expect(Reducer.reduce(m, .invalidateAndCancel).1 == .invalidateAndCancel(sessionID: 2))
        m.selectedTask = cancelled
        #expect(Reducer.reduce(m, .invalidateAndCancel).0.statusMessage == "session 3 is already invalidated")
        let (n, ne) = Reducer.reduce(m, .newTask)
        #expect(ne == nil && n.prompt == nil)
        #expect(n.statusMessage?.hasPrefix("session 3 is invalidated and takes no new tasks") == true)
    }

    @Test func simpleEffects() {
        let m = model(selecting: running)
        #expect(Reducer.reduce(m, .newSession).1 == .newSession)
        #expect(Reducer.reduce(m, .exportCSV).1 == .exportCSV)
        #expect(Reducer.reduce(m, .quit).1 == .quit)
    }

    @Test func newTaskPromptsForAURL() {
        var (m, e) = Reducer.reduce(model(selecting: running), .newTask)
        #expect(e == nil && m.prompt == Prompt(.newTaskURL(sessionID: 1)))
        for c in "http://x.test/a" { (m, e) = Reducer.handleKey(m, .char(c)) }
        (m, e) = Reducer.handleKey(m, .char("b"))
        (m, e) = Reducer.handleKey(m, .backspace)
        #expect(m.prompt?.text == "http://x.test/a")
        (m, e) = Reducer.handleKey(m, .enter)
        #expect(e == .newTask(url: "http://x.test/a", sessionID: 1))
        #expect(m.prompt == nil)
        (m, _) = Reducer.reduce(m, .newTask)
        (m, e) = Reducer.handleKey(m, .enter)
        #expect(e == nil && m.statusMessage == "no URL given; no task added")
    }

    @Test func filterNarrowsTheTableLive() {
        var (m, _) = Reducer.handleKey(model(selecting: running), .char("/"))
        for c in "missing" { (m, _) = Reducer.handleKey(m, .char(c)) }
        #expect(m.filter == "missing")
        #expect(TaskList(m).count == 1)
        #expect(m.selectedTask == TaskID(session: 2, task: 2))
        (m, _) = Reducer.handleKey(m, .enter)
        #expect(m.prompt == nil && m.filter == "missing")
        (m, _) = Reducer.handleKey(m, .escape)
        #expect(m.filter == "" && TaskList(m).count == 10)
        (m, _) = Reducer.handleKey(m, .char("/"))
        for c in "error" { (m, _) = Reducer.handleKey(m, .char(c)) }
        #expect(TaskList(m).count == 1)  // "completed error"; "HTTP 404" is not an error word
        (m, _) = Reducer.handleKey(m, .escape)
        (m, _) = Reducer.handleKey(m, .char("/"))
        for c in "404" { (m, _) = Reducer.handleKey(m, .char(c)) }
        #expect(TaskList(m).count == 1)  // the status code
        (m, _) = Reducer.handleKey(m, .escape)
        (m, _) = Reducer.handleKey(m, .char("/"))
        for c in "3.2" { (m, _) = Reducer.handleKey(m, .char(c)) }
        #expect(TaskList(m).count == 1)  // the task ID
    }

    @Test func navigation() {
        var m = model(selecting: running)
        (m, _) = Reducer.reduce(m, .selectUp)
        #expect(m.selectedTask == running)  // clamped at the top
        (m, _) = Reducer.reduce(m, .selectDown)
        (m, _) = Reducer.reduce(m, .selectDown)
        #expect(m.selectedTask == doneData)
        (m, _) = Reducer.reduce(m, .selectLast)
        #expect(m.selectedTask == TaskID(session: 3, task: 2) && m.selectedSession == 3)  // the queued task
        (m, _) = Reducer.reduce(m, .nextPane)
        #expect(m.focus == .detail)
        (m, _) = Reducer.reduce(m, .nextPane)
        #expect(m.focus == .sessions)  // at 80x24 with the detail shown there is no event log
        m.detailShown = false
        (m, _) = Reducer.reduce(m, .nextPane)
        (m, _) = Reducer.reduce(m, .nextPane)
        #expect(m.focus == .events)
        (m, _) = Reducer.reduce(m, .nextPane)
        #expect(m.focus == .sessions)
        (m, _) = Reducer.reduce(m, .selectUp)
        #expect(m.selectedSession == 2)
        #expect(Reducer.reduce(m, .finishAndInvalidate).0.statusMessage?.hasPrefix("session 2") == true)
        (m, _) = Reducer.reduce(m, .toggleDetail)
        #expect(m.detailShown)
    }

    @Test func helpAndThemeAndUnboundKeys() {
        var m = model(selecting: running)
        var e: Effect?
        (m, _) = Reducer.handleKey(m, .char("?"))
        #expect(m.helpShown)
        (m, e) = Reducer.handleKey(m, .char("q"))  // closes help, does not quit
        #expect(!m.helpShown && e == nil)
        (m, e) = Reducer.handleKey(m, .char("t"))
        #expect(m.themeName == "light" && e == .loadTheme("light"))
        m.themeName = "monochrome"
        (m, e) = Reducer.handleKey(m, .char("t"))
        #expect(m.themeName == "default")
        (m, e) = Reducer.handleKey(m, .char("Z"))
        #expect(e == nil && m.statusMessage == "Z is not bound; press ? for help")
    }

    @Test func noSelection() {
        var m = MonitorModel()
        (m, _) = Reducer.reduce(m, .suspend)
        #expect(m.statusMessage == "no task selected")
        (m, _) = Reducer.reduce(m, .selectDown)
        #expect(m.selectedTask == nil)
        (m, _) = Reducer.reduce(m, .finishAndInvalidate)
        #expect(m.statusMessage == "no session selected")
    }

    /// Decision 105: a segment's task is the segmented upload's: s, r and R are refused with a
    /// message (suspended, it held its scheduler slot forever); c still applies.
    @Test func segmentTasksAreNotSuspendedResumedOrContinued() {
        for action in [Action.suspend, .resume, .resumeFromResumeData] {
            var m = model(selecting: running)
            m.segmentMaps[running.session] = [.done, .inFlight]
            let (after, effect) = Reducer.reduce(m, action)
            #expect(effect == nil)
            #expect(after.statusMessage?.contains("is a segment of a segmented upload") == true, "\(String(describing: after.statusMessage))")
        }
        var m = model(selecting: running)
        m.segmentMaps[running.session] = [.done, .inFlight]
        #expect(Reducer.reduce(m, .cancel).1 != nil || Reducer.reduce(m, .cancel).0.confirmation != nil)
    }
}
