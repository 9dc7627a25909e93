import Foundation

/// A whole buffer written to a descriptor, through short writes and EINTR.
package enum FileDescriptorWrite {
    /// nil when every byte was written, otherwise the errno that stopped it (EIO for a
    /// write that wrote nothing and reported no error).
    package static func all(_ bytes: some ContiguousBytes, to fd: Int32) -> Int32? {
        bytes.withUnsafeBytes { raw in
            var off = 0
            while off < raw.count {
                let n = Foundation.write(fd, raw.baseAddress! + off, raw.count - off)
                if n < 0, errno == EINTR { continue }
                if n < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                    // A descriptor another program left non-blocking: wait until it takes more.
                    var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&p, 1, -1)
                    continue
                }
                if n <= 0 { return n < 0 ? errno : EIO }
                off += n
            }
            return nil
        }
    }
}
