import Testing
@testable import TransferModel

/// The figures behind `TransferTask.progress`, by table.
@Suite struct TaskProgressFiguresTests {
    @Test(arguments: [
        // kind, received, expected, sent, expected to send, succeeded, elapsed → figures
        (TaskKind.download, 0, -1, 0, -1, false, 0.0, TaskProgressFigures(total: -1, completed: 0)),
        (.download, 250, 1000, 0, -1, false, 1.0, TaskProgressFigures(total: 1000, completed: 250, throughput: 250, estimatedTimeRemaining: 3)),
        (.download, 500, -1, 0, -1, false, 2.0, TaskProgressFigures(total: -1, completed: 500, throughput: 250)),
        (.download, 700, -1, 0, -1, true, 1.0, TaskProgressFigures(total: 700, completed: 700, throughput: 700, estimatedTimeRemaining: 0)),
        (.download, 1200, 1000, 0, -1, false, 1.0, TaskProgressFigures(total: 1200, completed: 1200, throughput: 1200, estimatedTimeRemaining: 0)),
        (.data, 100, 400, 0, -1, false, 0.5, TaskProgressFigures(total: 400, completed: 100, throughput: 200, estimatedTimeRemaining: 1.5)),
        (.upload, 10, 10, 300, 600, false, 1.0, TaskProgressFigures(total: 600, completed: 300, throughput: 300, estimatedTimeRemaining: 1)),
        (.upload, 0, -1, 0, 600, false, 0.0, TaskProgressFigures(total: 600, completed: 0)),
    ] as [(TaskKind, Int64, Int64, Int64, Int64, Bool, Double, TaskProgressFigures)])
    func figures(_ kind: TaskKind, _ received: Int64, _ expected: Int64, _ sent: Int64, _ expectedToSend: Int64,
                 _ succeeded: Bool, _ elapsed: Double, _ figures: TaskProgressFigures) {
        #expect(TaskProgressFigures.compute(kind: kind, received: received, expectedToReceive: expected, sent: sent,
                                            expectedToSend: expectedToSend, succeeded: succeeded, elapsed: elapsed) == figures)
    }
}
