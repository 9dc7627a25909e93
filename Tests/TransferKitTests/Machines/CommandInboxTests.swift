import Dispatch
import Testing
@testable import TransferKit

/// The transfer thread's inbox as a script of posts and turns: no thread, no libcurl.
@Suite struct CommandInboxTests {
    /// The values of the task-free commands, in order; -1 for a shutdown.
    private func values(_ commands: [EngineCommand]) -> [Int] {
        commands.map { command in
            switch command {
            case .connectionsPerHost(let n): return n
            case .sessionRateLimit(let limit): return Int(limit)
            case .shutdown: return -1
            default: return -2
            }
        }
    }

    /// What the loop never runs, the rest of its last turn after the shutdown and what was
    /// posted after it, comes out in order and leaves the inbox empty: kept, each command would
    /// hold its task, its session and the engine alive.
    @Test func theCommandsAfterTheShutdownAreTakenInOrderAndTheInboxIsLeftEmpty() {
        let inbox = CommandInbox()
        #expect(inbox.post(.connectionsPerHost(1)))
        #expect(!inbox.post(.shutdown(DispatchSemaphore(value: 0))))
        #expect(!inbox.post(.connectionsPerHost(2)))
        var ran: [EngineCommand] = []
        let stop = inbox.runTurn { ran.append($0) }
        #expect(values(ran) == [1])
        #expect(stop.map { values([$0]) } == [-1])
        #expect(inbox.post(.sessionRateLimit(5)))
        #expect(inbox.hasBacklog)

        #expect(values(inbox.takeLeftovers()) == [2, 5])
        #expect(!inbox.hasBacklog)
        #expect(inbox.takeLeftovers().isEmpty)
        // Posting again starts from an empty inbox: the first post wakes the loop.
        #expect(inbox.post(.connectionsPerHost(3)))
    }
}
