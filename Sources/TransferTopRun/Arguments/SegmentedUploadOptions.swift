import Foundation
import TransferModel

/// The rules for `--segments` and `--segment-size`, checked with the other options
/// so a wrong combination is a usage error (exit 2) before anything is opened.
package enum SegmentedUploadOptions {
    /// 8 MiB: large enough that a segment's request costs little beside its bytes, small
    /// enough that a retry resends little (aria2's default piece for large files is 1 MiB to
    /// 16 MiB by size; tus clients commonly use 5-50 MiB chunks).
    package static let defaultSegmentSize: Int64 = 8 << 20

    package static func check(_ o: Options) throws(UsageError) {
        if o.segmentSize != nil && o.segments == nil { throw UsageError("--segment-size needs --segments N") }
        guard o.segments != nil else { return }
        guard let upload = o.upload else { throw UsageError("--segments needs -T FILE (the file to send in segments)") }
        if upload == "-" {
            throw UsageError("--segments needs a file, not standard input ('-'): a failed segment is read again")
        }
        if o.urls.count != 1 || !o.inputFiles.isEmpty {
            throw UsageError("--segments sends one file to one URL: give exactly one URL")
        }
        try checkSize(upload, segmentSize: o.segmentSize ?? defaultSegmentSize)
    }

    /// Decision 108: line mode's segmented upload has no run of tasks to export, so `--csv` and
    /// `--har` are refused there rather than ignored (the monitor writes them: its segments
    /// are the run's tasks).
    package static func checkLineMode(_ o: Options) throws(UsageError) {
        for (given, name) in [(o.csv, "--csv"), (o.har, "--har")] where given != nil {
            throw UsageError("\(name) is not written for a --segments upload in line mode (the monitor writes it); "
                             + "drop \(name) or run in a terminal without --no-tui")
        }
    }

    /// Decisions 106 and 107: an empty file is not sent in segments, and a file is cut into at
    /// most `SegmentLayout.maxSegments` segments (the smallest `--segment-size` that fits is
    /// named). A file that cannot be read here is left to the upload, which says why.
    static func checkSize(_ upload: String, segmentSize: Int64) throws(UsageError) {
        var st = stat()
        guard stat(upload, &st) == 0 else { return }
        let shown = SafeQuote.quote(upload)
        let type = st.st_mode & S_IFMT
        // Segments are cut by offset and a failed one is read again: a device, FIFO or socket
        // has no size to cut and cannot be read twice. (A directory is refused with the uploads.)
        if type != S_IFREG && type != S_IFDIR {
            throw UsageError("--segments needs a regular file of known size; '\(shown)' is not one (send it without --segments)")
        }
        guard type == S_IFREG else { return }
        if st.st_size == 0 {
            throw UsageError("--segments: '\(shown)' is empty; there is nothing to send in segments (send it without --segments)")
        }
        let layout = SegmentLayout(totalSize: Int64(st.st_size), segmentSize: segmentSize)
        guard !layout.fitsSegmentLimit else { return }
        let smallest = SegmentLayout.smallestSegmentSize(for: layout.totalSize)
        let kib = max(64, (smallest + 1023) / 1024)
        let fits = kib <= 4 << 20 ? "use --segment-size \(kib)K or more" : "no --segment-size up to 4G is large enough"
        throw UsageError("--segments: '\(shown)' (\(layout.totalSize) bytes) would be \(layout.count) segments of \(segmentSize) bytes, "
                         + "more than \(SegmentLayout.maxSegments); \(fits)")
    }
}
