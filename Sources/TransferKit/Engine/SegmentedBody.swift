import Foundation

/// Reads a body made of segments (a multipart form: bytes in memory and files on disk) at any
/// offset, for libcurl's read and seek callbacks. Every file is opened when the
/// transfer starts, so a missing one fails the task before a byte is sent; reads are `pread`,
/// so a rewind for a redirect or a retry is only a new offset.
final class SegmentedBody {
    private let segments: [MultipartLayout.Segment]
    /// Where each segment starts in the body.
    private let starts: [Int64]
    /// The open file of each file segment (-1 for bytes).
    private var fds: [Int32]
    let length: Int64

    init(_ segments: [MultipartLayout.Segment]) throws(TransferError) {
        self.segments = segments
        var starts: [Int64] = []
        var at: Int64 = 0
        for s in segments {
            starts.append(at)
            at += s.length
        }
        self.starts = starts
        length = at
        fds = Array(repeating: -1, count: segments.count)
        for (i, s) in segments.enumerated() {
            let path: String
            switch s {
            case .bytes: continue
            case .file(let p, _), .fileRange(let p, _, _): path = p
            }
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                let e = TransferError(.cannotOpenFile, "cannot open the body file \(path): \(String(cString: strerror(errno)))")
                closeAll()
                throw e
            }
            fds[i] = fd
        }
    }

    deinit { closeAll() }

    private func closeAll() {
        for fd in fds where fd >= 0 { close(fd) }
        fds = fds.map { _ in -1 }
    }

    /// Fills `buffer` from `offset` on: the count copied (0 at the end), or nil with a
    /// message when a file could not be read or is shorter than it was when appended.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Result<Int, TransferError> {
        var done = 0
        var at = offset
        while done < buffer.count, at < length {
            let i = segmentIndex(containing: at)
            let within = at - starts[i]
            let want = min(buffer.count - done, Int(segments[i].length - within))
            let target = UnsafeMutableRawBufferPointer(rebasing: buffer[done..<(done + want)])
            switch segments[i] {
            case .bytes(let d):
                let from = d.startIndex + Int(within)
                d.copyBytes(to: target.bindMemory(to: UInt8.self), from: from..<(from + want))
            case .file(let path, _), .fileRange(let path, _, _):
                var base: Int64 = 0
                if case .fileRange(_, let from, _) = segments[i] { base = from }
                let n = pread(fds[i], target.baseAddress, want, off_t(base + within))
                if n < 0 {
                    return .failure(TransferError(.cannotOpenFile, "cannot read the body file \(path): \(String(cString: strerror(errno)))"))
                }
                if n == 0 {
                    return .failure(TransferError(.cannotOpenFile, "the body file \(path) got shorter while it was sent"))
                }
                done += n
                at += Int64(n)
                continue
            }
            done += want
            at += Int64(want)
        }
        return .success(done)
    }

    /// Binary search: the last segment starting at or before `offset`.
    private func segmentIndex(containing offset: Int64) -> Int {
        var lo = 0, hi = starts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if starts[mid] <= offset { lo = mid } else { hi = mid - 1 }
        }
        // Skip empty segments that start here too (an empty file part).
        while lo + 1 < starts.count, segments[lo].length == 0 || starts[lo] + segments[lo].length <= offset { lo += 1 }
        return lo
    }
}

extension SegmentedBody {
    /// An upload file (`-T FILE`), open for reading while the transfer lives.
    static func openForReading(_ url: URL) throws(TransferError) -> Int32 {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw TransferError(.cannotOpenFile, "cannot open the upload file \(url.path): \(String(cString: strerror(errno)))")
        }
        return fd
    }
}
