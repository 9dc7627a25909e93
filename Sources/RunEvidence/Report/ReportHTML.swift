import Foundation

/// The report as one self-contained HTML page: inline CSS, SVG and script only, and a
/// Content-Security-Policy that lets the page load nothing, so it opens from disk and never
/// reaches the network. Every text from the run goes through `HTMLText.escape`; URLs are
/// shown, never made links.
public enum ReportHTML {
    public static func page(_ r: RunReport, palette: ReportPalette = .default, generator: String = "transfertop") -> String {
        let e = HTMLText.escape
        var h = """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="generator" content="\(e(generator))">
        <title>transfertop report: \(e(r.name))</title>
        <style>:root{\(variables(palette))}
        \(style)</style></head>
        <body>
        <h1>transfertop report: \(e(r.name))</h1>

        """
        h += "<p id=\"run\">\(r.hopCount) hops in \(r.taskCount) tasks over \(e(EvidenceFormat.duration(r.spanMs))), "
            + "<span class=\"\(r.errorCount > 0 ? "bad" : "")\">\(r.errorCount) error\(r.errorCount == 1 ? "" : "s")</span>"
            + (r.start.map { ", from \(e(ISO8601DateFormatter().string(from: $0)))" } ?? "") + ".</p>\n"
        h += "<nav><a href=\"#waterfall-section\">waterfall</a><a href=\"#hosts\">hosts</a><a href=\"#slowest\">slowest hops</a>"
            + "<a href=\"#errors\">errors</a>\(r.comparison == nil ? "" : "<a href=\"#compare\">compare</a>")</nav>\n"
        waterfall(r, into: &h)
        hosts(r, palette: palette, into: &h)
        slowest(r, into: &h)
        errors(r, into: &h)
        compare(r, into: &h)
        h += "<script>\(script)</script>\n</body></html>\n"
        return h
    }

    static func variables(_ p: ReportPalette) -> String {
        var v = "--bg:\(p.background);--text:\(p.text);--dim:\(p.dim);--title:\(p.title);--border:\(p.border);--error:\(p.error)"
        for part in HopPart.allCases { v += ";--p-\(part.rawValue):\(p.parts[part]!)" }
        return v
    }

    // MARK: waterfall

    static func waterfall(_ r: RunReport, into h: inout String) {
        let e = HTMLText.escape
        h += "<section id=\"waterfall-section\"><h2>Waterfall</h2>\n"
        if r.drawnHops < r.hopCount {
            h += "<p class=\"note\" id=\"sampled\">Drawn: \(r.drawnHops) of \(r.hopCount) hops — the tasks of the slowest hops "
                + "(marked) and an even sample of the others in start order. The tables below count every hop.</p>\n"
        }
        h += "<p class=\"legend\">" + HopPart.allCases.map {
            "<span><i style=\"background:var(--p-\($0.rawValue))\"></i>\($0.rawValue)</span>"
        }.joined() + "</p>\n"
        h += "<form id=\"zoom\">zoom from <input id=\"zoom-from\" inputmode=\"decimal\"> to <input id=\"zoom-to\" inputmode=\"decimal\"> ms "
            + "<button type=\"submit\">zoom</button> <button type=\"button\" id=\"zoom-reset\">whole run</button> "
            + "<span class=\"note\">or drag across the time axis</span></form>\n"
        h += "<div class=\"wf\" id=\"waterfall\" data-span=\"\(HTMLText.number(r.spanMs))\">\n"
        h += "<div class=\"row axis\"><span class=\"label\">task · hop · method · status · URL</span><div class=\"track\">"
        for f in [0.0, 0.2, 0.4, 0.6, 0.8] {
            h += "<span class=\"tick\" data-f=\"\(f)\" style=\"left:\(HTMLText.number(f * 100))%\">\(e(EvidenceFormat.duration(r.spanMs * f)))</span>"
        }
        h += "</div><span class=\"dur\">duration</span></div>\n"
        for task in r.waterfall {
            if task.hops.count > 1 {
                let first = task.hops[0]
                let total = task.hops.compactMap { h in r.offsetMs(h).map { $0 + h.barMs } }.max().flatMap { end in
                    r.offsetMs(first).map { end - $0 }
                }
                h += "<details open class=\"task\(task.slowest ? " slow" : "")\" data-task=\"\(e(task.task))\"><summary>task \(e(task.task)) · "
                    + "\(task.hops.count) hops · \(e(EvidenceFormat.duration(total))) · \(e(first.url))</summary>\n"
                for hop in task.hops { row(hop, r, slow: false, into: &h) }
                h += "</details>\n"
            } else {
                row(task.hops[0], r, slow: task.slowest, into: &h)
            }
        }
        h += "</div></section>\n"
    }

    static func row(_ hop: ReportHop, _ r: RunReport, slow: Bool, into h: inout String) {
        let e = HTMLText.escape
        let label = "\(hop.task) #\(hop.hop ?? 0) \(hop.method) \(hop.status.map(String.init) ?? "-") \(hop.url)"
        h += "<div class=\"row hop\(slow ? " slow" : "")\(hop.failed ? " failed" : "")\" data-task=\"\(e(hop.task))\" data-hop=\"\(hop.hop ?? 0)\">"
            + "<span class=\"label\(hop.failed ? " bad" : "")\" title=\"\(e(hop.url))\">\(e(label))</span><div class=\"track\"><div class=\"lane\">"
        if let offset = r.offsetMs(hop), r.spanMs > 0 {
            var t = offset
            let phases = HopPart.allCases.compactMap { p in hop.parts[p].map { (p, $0) } }
            if phases.isEmpty {
                h += segment("wait", t, hop.barMs, r.spanMs, "total \(EvidenceFormat.duration(hop.barMs))")
            }
            for (p, ms) in phases {
                h += segment(p.rawValue, t, ms, r.spanMs, "\(p.rawValue) \(EvidenceFormat.duration(ms))")
                t += ms
            }
        }
        h += "</div></div><span class=\"dur\">\(e(EvidenceFormat.duration(hop.totalMs)))</span></div>\n"
    }

    static func segment(_ part: String, _ at: Double, _ ms: Double, _ span: Double, _ title: String) -> String {
        "<span class=\"seg\" data-part=\"\(part)\" title=\"\(HTMLText.escape(title))\" style=\"left:\(HTMLText.number(at / span * 100))%;"
            + "width:\(HTMLText.number(ms / span * 100))%;background:var(--p-\(part))\"></span>"
    }

    // MARK: hosts

    static func hosts(_ r: RunReport, palette: ReportPalette, into h: inout String) {
        let e = HTMLText.escape
        h += "<section id=\"hosts\"><h2>Hosts</h2>\n<p class=\"note\">Per host and protocol: p50, p90, p99 and max of each phase "
            + "(HDR histograms, within 0.1 %); a phase that did not happen (a reused connection's dns and connect, plain "
            + "HTTP's tls) has no sample, not a zero. Histograms: \(HistogramBins.binCount) bars from the smallest to the largest value.</p>\n"
        let bins = Dictionary(r.histograms.map { ($0.key, $0.phases) }, uniquingKeysWith: { a, _ in a })
        for (key, g) in r.statistics.sortedGroups {
            h += "<div class=\"host\" data-host=\"\(e(key.host))\" data-protocol=\"\(e(key.protocolName))\">"
                + "<h3>\(e(key.host)) · \(e(key.protocolName)) · \(g.count) hops, "
                + "<span class=\"\(g.errors > 0 ? "bad" : "")\">\(g.errors) error\(g.errors == 1 ? "" : "s")</span>"
                + (g.errorPercent.map { String(format: " (%.1f%%)", $0) } ?? "") + "</h3>\n"
            h += "<table class=\"percentiles\"><tr><th class=\"l\">phase</th><th>n</th>"
                + EvidenceFormat.percentiles.map { "<th>p\(Int($0))</th>" }.joined() + "<th>max</th></tr>\n"
            for phase in EvidencePhase.allCases {
                let hist = g.histogram(phase)
                h += "<tr><td class=\"l\">\(phase.rawValue)</td><td>\(hist.count)</td>"
                    + EvidenceFormat.percentiles.map { "<td>\(e(EvidenceFormat.duration(hist.milliseconds(at: $0))))</td>" }.joined()
                    + "<td>\(e(EvidenceFormat.duration(hist.maxMilliseconds)))</td></tr>\n"
            }
            h += "</table>\n"
            if let phases = bins[key] {
                h += "<div class=\"hists\">"
                for (phase, b) in phases { histogram(phase, b, palette.colour(phase), into: &h) }
                h += "</div>\n"
            }
            h += "</div>\n"
        }
        if r.histogramHostsLeftOut > 0 {
            h += "<p class=\"note\">Histograms for the \(RunReport.histogramHostLimit) busiest hosts; "
                + "\(r.histogramHostsLeftOut) more have their tables only.</p>\n"
        }
        h += "</section>\n"
    }

    static func histogram(_ phase: EvidencePhase, _ b: HistogramBins, _ colour: String, into h: inout String) {
        let e = HTMLText.escape
        let width = 240.0, height = 64.0
        let barWidth = width / Double(b.counts.count)
        let most = Double(b.counts.max() ?? 1)
        let n = b.counts.reduce(0, +)
        h += "<figure class=\"histogram\" data-phase=\"\(phase.rawValue)\"><figcaption>\(phase.rawValue) · n=\(n) · "
            + "\(e(EvidenceFormat.duration(b.edges.first))) – \(e(EvidenceFormat.duration(b.edges.last)))\(b.logarithmic ? " (log)" : "")"
            + "</figcaption><svg class=\"hist\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" "
            + "viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"\(phase.rawValue) histogram\">"
        for (i, c) in b.counts.enumerated() where c > 0 {
            let bar = max(1, (Double(c) / most * (height - 2)).rounded())
            h += "<rect x=\"\(HTMLText.number(Double(i) * barWidth))\" y=\"\(HTMLText.number(height - bar))\" "
                + "width=\"\(HTMLText.number(max(1, barWidth - 1)))\" height=\"\(HTMLText.number(bar))\" fill=\"\(colour)\">"
                + "<title>\(e(EvidenceFormat.duration(b.edges[i]))) – \(e(EvidenceFormat.duration(b.edges[i + 1]))): \(c)</title></rect>"
        }
        h += "</svg></figure>"
    }

    // MARK: tables

    static func slowest(_ r: RunReport, into h: inout String) {
        h += "<section id=\"slowest\"><h2>Slowest hops</h2>\n<table><tr><th>total</th><th>ttfb</th><th>status</th>"
            + "<th class=\"l\">protocol</th><th class=\"l\">task</th><th>hop</th><th class=\"l\">URL</th></tr>\n"
        for hop in r.slowest {
            let e = HTMLText.escape
            h += "<tr><td>\(e(EvidenceFormat.duration(hop.barMs)))</td><td>\(e(EvidenceFormat.duration(hop.ttfbMs)))</td>"
                + "<td class=\"\(hop.failed ? "bad" : "")\">\(hop.status.map(String.init) ?? "-")</td><td class=\"l\">\(e(hop.protocolName))</td>"
                + "<td class=\"l\">\(e(hop.task))</td><td>\(hop.hop ?? 0)</td><td class=\"l url\" title=\"\(e(hop.url))\">\(e(hop.url))</td></tr>\n"
        }
        h += "</table></section>\n"
    }

    static func errors(_ r: RunReport, into h: inout String) {
        let e = HTMLText.escape
        h += "<section id=\"errors\"><h2>Errors</h2>\n"
        if r.errorCount == 0 {
            h += "<p>No errors: every hop got a response below 400.</p></section>\n"
            return
        }
        h += "<p>\(r.errorCount) failed hop\(r.errorCount == 1 ? "" : "s") (a transport error or a status of 400 or more)"
            + (r.errorCount > r.errors.count ? "; the first \(r.errors.count) in the file's order" : "") + ".</p>\n"
        h += "<table><tr><th class=\"l\">task</th><th>hop</th><th>status</th><th class=\"l\">error</th><th class=\"l\">URL</th></tr>\n"
        for hop in r.errors {
            h += "<tr class=\"error\"><td class=\"l\">\(e(hop.task))</td><td>\(hop.hop.map(String.init) ?? "-")</td>"
                + "<td class=\"bad\">\(hop.status.map(String.init) ?? "-")</td><td class=\"l\">\(e(hop.error ?? ""))</td>"
                + "<td class=\"l url\" title=\"\(e(hop.url))\">\(e(hop.url))</td></tr>\n"
        }
        h += "</table></section>\n"
    }

    static func compare(_ r: RunReport, into h: inout String) {
        guard let c = r.comparison else { return }
        let e = HTMLText.escape
        let s = c.settings
        h += "<section id=\"compare\"><h2>Compare: \(e(r.name)) → \(e(r.comparedName ?? ""))</h2>\n"
        h += "<p class=\"note\">" + e(String(format: "A change counts past %g%% and %gms of the median at p < %g (Mann-Whitney U).",
                                             s.threshold * 100, s.minimumChangeMs, s.alpha)) + "</p>\n"
        h += "<table><tr><th class=\"l\">host</th><th class=\"l\">phase</th><th>n1</th><th>n2</th><th>p50 A</th><th>p50 B</th>"
            + "<th>Δp50</th><th>Δp90</th><th>p</th><th class=\"l\">verdict</th></tr>\n"
        for row in c.rows {
            let cls = row.verdict == .slower ? "slower" : row.verdict == .faster ? "faster" : ""
            h += "<tr class=\"\(cls)\"><td class=\"l\">\(e(row.host))</td><td class=\"l\">\(row.phase.rawValue)</td>"
                + "<td>\(row.before.count)</td><td>\(row.after.count)</td>"
                + "<td>\(e(EvidenceFormat.duration(row.p50(row.before))))</td><td>\(e(EvidenceFormat.duration(row.p50(row.after))))</td>"
                + "<td>\(e(RunComparison.change(row.p50(row.before), row.p50(row.after))))</td>"
                + "<td>\(e(RunComparison.change(row.p90(row.before), row.p90(row.after))))</td>"
                + "<td>\(e(row.test.map { RunComparison.pText($0.p) } ?? "-"))</td><td class=\"l\">\(e(row.verdict.rawValue))</td></tr>\n"
        }
        h += "</table></section>\n"
    }
}
