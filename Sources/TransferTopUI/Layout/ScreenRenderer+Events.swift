import Foundation
import TransferModel

extension ScreenRenderer {
    /// The event log, newest at the bottom; `eventScroll` looks back from the newest.
    static func drawEvents(_ grid: inout CellGrid, _ model: MonitorModel, _ rows: ScreenLayout.Rows) {
        let count = model.events.count
        let back = Swift.min(model.eventScroll, Swift.max(0, count - rows.bodyHeight))
        var title = [Span("Events \(count)", .title)]
        if back > 0 { title.append(Span(" (\(back) newer below)", .dim)) }
        drawTitle(&grid, row: rows.top, title: title, focused: model.focus == .events, utf8: model.utf8)
        let end = count - back
        let start = Swift.max(0, end - rows.bodyHeight)
        for (i, event) in model.events[start..<end].enumerated() {
            // A background session's event names its task as `status` does (NAME:N).
            let who = model.isDaemonSession(event.sessionID)
                ? event.taskIdentifier.map { model.taskLabel(TaskID(session: event.sessionID, task: $0)) } ?? model.sessionLabel(event.sessionID)
                : nil
            grid.write(eventLine(event, utcOffset: model.utcOffsetSeconds, who: who), column: 1, row: rows.bodyTop + i)
        }
    }

    /// `12:00:01.250 1.3 didReceiveResponse 200 OK`
    public static func eventLine(_ e: TransferEvent, utcOffset: Int, who name: String? = nil) -> [Span] {
        let who = name ?? e.taskIdentifier.map { "\(e.sessionID).\($0)" } ?? "\(e.sessionID)"
        var spans = [Span(clockTime(e.date, utcOffset: utcOffset) + " ", .dim), Span(who + " ", .text)]
        spans.append(Span(eventName(e.kind), .logText))
        // The engine promises secret-free details; redacting again costs little and guards logs.
        if !e.detail.isEmpty { spans.append(Span(" " + Redaction.redactText(e.detail), .dim)) }
        return spans
    }

    static func eventName(_ kind: TransferEvent.Kind) -> String {
        switch kind {
        case .sessionCreated: return "session created"
        case .sessionStateChanged(let s): return "session \(s.rawValue)"
        case .taskCreated: return "task created"
        case .taskStateChanged(let s): return "task \(s.rawValue)"
        case .delegateCallback(let name): return name
        case .progress(let received, let sent):
            return "progress ↓\(Units.bytes(received)) ↑\(Units.bytes(sent))"
        }
    }

    /// `HH:mm:ss.SSS` without a DateFormatter, which is slow and reads the process time zone.
    static func clockTime(_ date: Date, utcOffset: Int) -> String {
        let ms = Int64(((date.timeIntervalSince1970 + Double(utcOffset)) * 1000).rounded(.down))
        let day = ((ms % 86_400_000) + 86_400_000) % 86_400_000
        let h = day / 3_600_000, m = day / 60_000 % 60, s = day / 1000 % 60, f = day % 1000
        let frac = f < 10 ? "00\(f)" : (f < 100 ? "0\(f)" : "\(f)")
        return "\(Units.twoDigits(Int(h))):\(Units.twoDigits(Int(m))):\(Units.twoDigits(Int(s))).\(frac)"
    }
}
