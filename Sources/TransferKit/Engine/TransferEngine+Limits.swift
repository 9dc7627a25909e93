import CCurl
import Foundation

/// Limits changed while transfers run: a task's bandwidth, the session's bandwidth (shared
/// out by `RateShares`) and the session's connections per host. Transfer thread only, as every
/// libcurl call (DECISIONS 176, 177).
extension TransferEngine {
    /// A task that has not started yet takes its limit from its `rateLimit` when it does.
    func setRateLimit(_ task: TransferTask, _ limit: Int64) {
        transfers[ObjectIdentifier(task)]?.ownRateLimit = max(0, limit)
        ratesInUse = true
        rebalanceRates()
        releaseRatePauses(now: Monotonic.now())
    }

    func setSessionRateLimit(_ limit: Int64) {
        rates.sessionLimit = max(0, limit)
        ratesInUse = true
        rebalanceRates()
        releaseRatePauses(now: Monotonic.now())
    }

    /// Gives each transfer in the multi the limit it should have now, where it changed. Free
    /// while no limit was ever set or every handle is back to none.
    func rebalanceRates() {
        guard ratesInUse else { return }
        let running = Array(inMultiTransfers.values)
        let sharers = running.map { t in
            RateShares.Sharer(stage: rateStage(t), own: t.ownRateLimit, applied: t.appliedRateLimit)
        }
        let now = Monotonic.now()
        for (index, limit) in rates.changes(for: sharers) {
            let t = running[index]
            // What it sends: libcurl's own limit, read at its next rate check. What it
            // receives: the engine's guard, which pauses it (RateGuard).
            _ = try? t.easy.set(CURLOPT_MAX_SEND_SPEED_LARGE, offset: limit)
            t.rateGuard.set(limit, now: now)
            t.appliedRateLimit = limit
        }
        // A task's own limit goes with its transfer; one not in the multi sets this again when
        // it joins (`attach`).
        ratesInUse = rates.sessionLimit > 0
            || running.contains { $0.ownRateLimit > 0 || $0.appliedRateLimit != 0 || $0.ratePaused }
    }

    /// Lets transfers the guard paused go on once their bucket has refilled (each timer
    /// scan: 50 ms). `now` is the monotonic clock, the guards'; `timerNow` the engine's timer
    /// clock, against which the idle deadline is checked (the same but in tests that move
    /// it). One the engine holds for another reason (suspended, a slow delegate) is left to
    /// that reason's own unpause, whose next chunk meets the guard again.
    func releaseRatePauses(now: UInt64, timerNow: UInt64? = nil) {
        guard ratesInUse else { return }
        for t in inMultiTransfers.values where t.ratePaused {
            // The engine holds it, not the server: its idle timeout does not run meanwhile (a
            // chunk taken into debt at a low limit pauses it for longer than that timeout).
            t.lastActivity = timerNow ?? now
            guard t.flow.isRunning, t.flow.holds.isEmpty else { continue }
            guard t.rateGuard.mayGoOn(now: now) else { continue }
            t.ratePaused = false
            _ = curl_easy_pause(t.easy.raw, CURLPAUSE_CONT)
        }
    }

    private func rateStage(_ t: Transfer) -> RateShares.Sharer.Stage {
        guard t.flow.isRunning else { return .idle }
        if case .connected = t.flow.placement { return .moving }
        return .connecting
    }

    /// A new per-host connection limit for the session. A lower one applies to connections
    /// made from now on (libcurl closes none); a higher one starts waiting transfers now.
    func setConnectionsPerHost(_ n: Int) {
        let n = max(1, n)
        let raised = n > slots.connectionsPerHost
        slots.connectionsPerHost = n
        multi.setLong(CURLMOPT_MAX_HOST_CONNECTIONS, n)
        if raised {
            // libcurl 7.88 takes a handle out of its per-host queue only when another of the
            // host's transfers ends, not when the limit changes: the handles still in that
            // queue (no resolver, socket or prereq callback yet) are added again, and so are
            // counted against the new limit at once.
            for t in inMultiTransfers.values where t.dequeuedAt == nil && t.flow.placement == .attached {
                curl_multi_remove_handle(multi.raw, t.easy.raw)
                if curl_multi_add_handle(multi.raw, t.easy.raw) != CURLM_OK {
                    // `finish` detaches it as any ending transfer (its slot goes to a waiting one).
                    finish(t, error: TransferError(.unknown, "libcurl refused the transfer again after a change of connections per host"))
                }
            }
        }
        // The engine's own queue holds at least one handle per connection (HostSlots).
        for key in slots.waitingHosts { fillHost(key) }
    }
}
