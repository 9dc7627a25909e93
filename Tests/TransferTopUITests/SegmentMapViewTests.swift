import Testing
import TransferModel
@testable import TransferTopUI

/// The segment map in the monitor, a run of cells per colour, and its line in the
/// detail pane of a segment's task.
@Suite struct SegmentMapViewTests {
    @Test func runsOfEqualCellsShareTheirStatesRole() {
        let spans = SegmentMapView.spans([.done, .done, .inFlight, .waiting, .waiting, .retrying, .failed], width: 20)
        #expect(spans == [Span("##", .stateCompleted), Span(">", .stateRunning), Span("..", .dim),
                          Span("!", .stateSuspended), Span("x", .error)])
        #expect(SegmentMapView.count([.done, .inFlight, .done]) == "2/3 stored")
    }
}
