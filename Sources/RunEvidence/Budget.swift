import Foundation

/// One budget of `--slo`: `[host=NAME:]METRIC<LIMIT`, e.g. `ttfb.p95<200ms`,
/// `host=api.example:connect.p99<=50ms`, `errors<1%`. docs/evidence.md has the grammar.
public struct Budget: Sendable, Equatable, CustomStringConvertible {
    public enum Statistic: Sendable, Equatable {
        /// A percentile, 0 < p < 100 (`p95`, `p99.9`).
        case percentile(Double)
        case max
    }

    public enum Metric: Sendable, Equatable {
        case phase(EvidencePhase, Statistic)
        /// Failed hops as a percentage of hops.
        case errors
    }

    /// nil: every host of the run together.
    public var host: String?
    public var metric: Metric
    /// `<=` rather than `<`.
    public var inclusive: Bool
    /// Milliseconds for a phase, a percentage for errors.
    public var limit: Double

    public init(host: String? = nil, metric: Metric, inclusive: Bool = false, limit: Double) {
        self.host = host
        self.metric = metric
        self.inclusive = inclusive
        self.limit = limit
    }

    /// The budget as written canonically: `host=h:ttfb.p95<200ms`.
    public var description: String {
        var s = host.map { "host=\($0):" } ?? ""
        switch metric {
        case .phase(let phase, let stat):
            s += phase.rawValue + "."
            switch stat {
            case .percentile(let p): s += "p" + Self.number(p)
            case .max: s += "max"
            }
        case .errors: s += "errors"
        }
        s += inclusive ? "<=" : "<"
        if case .errors = metric { return s + Self.number(limit) + "%" }
        return s + Self.number(limit) + "ms"
    }

    public static func number(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }

    /// Whether `value` keeps the budget.
    public func holds(_ value: Double) -> Bool { inclusive ? value <= limit : value < limit }
}

/// A budget checked against a run: its value, and whether it was breached.
public struct BudgetResult: Sendable, Equatable {
    public var budget: Budget
    /// The measured value (ms or %); nil when there was nothing to measure.
    public var value: Double?
    public var breached: Bool
    /// Why there is no value: no transfer to the host, or the phase never happened.
    public var note: String?

    /// `budget breached: ttfb.p95<100ms (all hosts): 203.4ms`.
    public var line: String {
        let scope = budget.host == nil ? " (all hosts)" : ""
        let measured: String
        if let value {
            if case .errors = budget.metric { measured = String(format: "%.2f%%", value) } else { measured = EvidenceFormat.duration(value) }
        } else {
            measured = note ?? "no value"
        }
        return "budget \(breached ? "breached" : "kept"): \(budget)\(scope): \(measured)"
    }
}

extension Budget {
    /// Checks every budget. A budget naming a host no hop went to is breached (a misspelt
    /// host would otherwise pass a CI step silently); a phase that never happened (TLS on
    /// plain HTTP, connect on reused connections) has nothing over budget and is kept.
    public static func check(_ budgets: [Budget], _ stats: RunStatistics) -> [BudgetResult] {
        budgets.map { b in
            let group: GroupStatistics
            if let host = b.host {
                guard let g = stats.host(host) else {
                    return BudgetResult(budget: b, value: nil, breached: true, note: "no transfer to \(host)")
                }
                group = g
            } else {
                group = stats.all
            }
            let value: Double?
            switch b.metric {
            case .errors: value = group.errorPercent
            case .phase(let phase, .max): value = group.histogram(phase).maxMilliseconds
            case .phase(let phase, .percentile(let p)): value = group.histogram(phase).milliseconds(at: p)
            }
            guard let value else { return BudgetResult(budget: b, value: nil, breached: false, note: "no samples") }
            return BudgetResult(budget: b, value: value, breached: !b.holds(value), note: nil)
        }
    }
}

/// A refused `--slo` text: what is wrong, and at which character (1-based).
public struct BudgetSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var column: Int
    public var reason: String
    public var description: String { "column \(column): \(reason)" }
}

/// The `--slo` parser: budgets separated by commas, blanks allowed between tokens.
public enum BudgetParser {
    public static func parse(_ text: String) throws(BudgetSyntaxError) -> [Budget] {
        var scanner = Scanner(Array(text.unicodeScalars))
        var budgets: [Budget] = []
        repeat {
            budgets.append(try clause(&scanner))
            scanner.skipBlanks()
        } while scanner.take(",")
        scanner.skipBlanks()
        if !scanner.atEnd { throw scanner.error("expected ',' or the end, found '\(scanner.peekText)'") }
        return budgets
    }

    struct Scanner {
        let chars: [Unicode.Scalar]
        var i = 0
        init(_ chars: [Unicode.Scalar]) { self.chars = chars }

        var atEnd: Bool { i >= chars.count }
        var peek: Unicode.Scalar? { atEnd ? nil : chars[i] }
        /// The next few characters, for messages (escaped: the text may be anything).
        var peekText: String {
            String(String.UnicodeScalarView(chars[i..<min(chars.count, i + 8)])).unicodeScalars
                .map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? String($0) : $0.escaped(asASCII: true) }.joined()
        }
        func error(_ reason: String, at column: Int? = nil) -> BudgetSyntaxError {
            BudgetSyntaxError(column: (column ?? i) + 1, reason: reason)
        }
        mutating func skipBlanks() { while let c = peek, c == " " || c == "\t" { i += 1 } }
        mutating func take(_ s: String) -> Bool {
            let scalars = Array(s.unicodeScalars)
            guard i + scalars.count <= chars.count, Array(chars[i..<i + scalars.count]) == scalars else { return false }
            i += scalars.count
            return true
        }
        mutating func word() -> String {
            let start = i
            while let c = peek, (c.properties.isAlphabetic && c.isASCII) { i += 1 }
            return String(String.UnicodeScalarView(chars[start..<i])).lowercased()
        }
        /// A decimal number (`200`, `0.5`, `99.9`); nil when none starts here.
        mutating func number() -> Double? {
            let start = i
            while let c = peek, ("0"..."9").contains(c) { i += 1 }
            if peek == ".", i + 1 < chars.count, ("0"..."9").contains(chars[i + 1]) {
                i += 1
                while let c = peek, ("0"..."9").contains(c) { i += 1 }
            }
            guard i > start else { return nil }
            return Double(String(String.UnicodeScalarView(chars[start..<i])))
        }
    }

    static func clause(_ s: inout Scanner) throws(BudgetSyntaxError) -> Budget {
        s.skipBlanks()
        if s.atEnd || s.peek == "," { throw s.error("expected a budget such as 'ttfb.p95<200ms'") }
        var host: String?
        if s.take("host=") {
            // The name runs to the clause's last ':' (so `host=127.0.0.1:8080:` keeps its port).
            let start = s.i
            var end = start
            var lastColon: Int?
            while end < s.chars.count, s.chars[end] != "," {
                if s.chars[end] == ":" { lastColon = end }
                end += 1
            }
            guard let colon = lastColon else { throw s.error("expected ':' after the host name", at: end) }
            let name = String(String.UnicodeScalarView(s.chars[start..<colon])).trimmingCharacters(in: .whitespaces)
            if name.isEmpty { throw s.error("expected a host name after 'host='", at: start) }
            if let bad = name.unicodeScalars.firstIndex(where: { $0.value < 0x21 || $0.value == 0x7F }) {
                throw s.error("a host name has no blanks or control characters", at: start + name.unicodeScalars.distance(from: name.unicodeScalars.startIndex, to: bad))
            }
            host = name.lowercased()
            s.i = colon + 1
            s.skipBlanks()
        }
        let metricStart = s.i
        let name = s.word()
        let metric: Budget.Metric
        if name == "errors" {
            metric = .errors
        } else if let phase = EvidencePhase(rawValue: name) {
            guard s.take(".") else { throw s.error("expected '.' and a statistic after '\(name)' (e.g. \(name).p95)") }
            let statStart = s.i
            if s.take("max") {
                metric = .phase(phase, .max)
            } else if s.take("p") || s.take("P") {
                guard let p = s.number() else { throw s.error("expected a percentile after 'p' (e.g. p95, p99.9)") }
                guard p > 0, p < 100 else { throw s.error("a percentile is between 0 and 100, exclusive", at: statStart + 1) }
                metric = .phase(phase, .percentile(p))
            } else {
                throw s.error("expected a statistic: pNN (e.g. p95) or max")
            }
        } else {
            let found = name.isEmpty ? "'\(s.peekText)'" : "'\(name)'"
            throw s.error("expected dns, connect, tls, ttfb, total or errors, found \(found)", at: metricStart)
        }
        s.skipBlanks()
        let inclusive: Bool
        if s.take("<=") { inclusive = true } else if s.take("<") { inclusive = false } else {
            throw s.error("expected '<' or '<=' (a budget is an upper bound)")
        }
        s.skipBlanks()
        let numberStart = s.i
        guard let value = s.number() else { throw s.error("expected a number") }
        s.skipBlanks()
        let unitStart = s.i
        let unit = s.word()
        var limit = value
        if case .errors = metric {
            guard s.take("%"), unit.isEmpty else { throw s.error("expected '%' after the error rate", at: unitStart) }
            if limit > 100 { throw s.error("an error rate is at most 100%", at: numberStart) }
        } else {
            switch unit {
            case "ms": break
            case "s": limit *= 1000
            case "us": limit /= 1000
            default: throw s.error("expected a unit: ms, s or us", at: unitStart)
            }
        }
        return Budget(host: host, metric: metric, inclusive: inclusive, limit: limit)
    }
}
