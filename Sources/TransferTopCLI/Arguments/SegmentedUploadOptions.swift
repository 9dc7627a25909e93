/// The rules for `--segments` and `--segment-size` (issue 14), checked with the other options
/// so a wrong combination is a usage error (exit 2) before anything is opened.
enum SegmentedUploadOptions {
    /// 8 MiB: large enough that a segment's request costs little beside its bytes, small
    /// enough that a retry resends little (aria2's default piece for large files is 1 MiB to
    /// 16 MiB by size; tus clients commonly use 5-50 MiB chunks).
    static let defaultSegmentSize: Int64 = 8 << 20

    static func check(_ o: Options) throws(UsageError) {
        if o.segmentSize != nil && o.segments == nil { throw UsageError("--segment-size needs --segments N") }
        guard o.segments != nil else { return }
        guard let upload = o.upload else { throw UsageError("--segments needs -T FILE (the file to send in segments)") }
        if upload == "-" {
            throw UsageError("--segments needs a file, not standard input ('-'): a failed segment is read again")
        }
        if o.urls.count != 1 || !o.inputFiles.isEmpty {
            throw UsageError("--segments sends one file to one URL: give exactly one URL")
        }
    }
}
