import CCurl
import Foundation

/// libcurl's callbacks. They run on the transfer thread inside `curl_multi_perform` (and
/// inside `curl_easy_pause` on unpause, A2): they never block, never take the engine's
/// inbox lock, and never remove handles — they record what happened and the loop acts on it.
enum TransferCallbacks {
    static let write: tk_data_callback = { ptr, size, count, ctx in
        Transfer.from(ctx).receiveBody(UnsafeRawBufferPointer(start: ptr, count: size * count))
    }

    static let header: tk_data_callback = { ptr, size, count, ctx in
        Transfer.from(ctx).receiveHeaderLine(UnsafeRawBufferPointer(start: ptr, count: size * count))
    }

    static let read: tk_data_callback = { ptr, size, count, ctx in
        Transfer.from(ctx).supplyBody(UnsafeMutableRawBufferPointer(start: ptr, count: size * count))
    }

    static let seek: tk_seek_callback = { ctx, offset, origin in
        Transfer.from(ctx).seekBody(Int64(offset), origin: origin)
    }

    /// Runs once a connection is attached (new or reused), before the request is sent.
    static let prereq: tk_prereq_callback = { ctx, _, _, _, _ in
        let t = Transfer.from(ctx)
        let now = Monotonic.now()
        t.prereqAt = now
        t.flow.connected()
        t.markDequeued(now)
        return Int32(CURL_PREREQFUNC_OK)
    }

    /// Name resolution starts: the hop has left the per-host queue.
    static let resolverStart: tk_resolver_start_callback = { _, _, ctx in
        Transfer.from(ctx).markDequeued(Monotonic.now())
        return 0
    }

    /// A new socket is about to connect: the hop has left the queue (cached DNS skips the
    /// resolver callback).
    static let sockopt: tk_sockopt_callback = { ctx, fd, _ in
        let t = Transfer.from(ctx)
        t.markDequeued(Monotonic.now())
        t.newConnectionSocket = fd  // libcurl 7.88 names the socket only once a transfer is done
        return 0  // CURL_SOCKOPT_OK
    }
}

extension Transfer {
    /// Puts this transfer on the engine's list for the end of the loop iteration.
    func touch() {
        if touchedTurn != engine.turn {
            touchedTurn = engine.turn
            engine.touched.append(self)
        }
    }

    func markDequeued(_ now: UInt64) {
        guard dequeuedAt == nil else { return }
        dequeuedAt = now
        lastActivity = now
    }

    /// One header line (status lines included). A blank line ends a head; 1xx heads are
    /// skipped because the real response follows.
    func receiveHeaderLine(_ line: UnsafeRawBufferPointer) -> Int {
        touch()
        // FTP's server replies come here too (220, 331, 213, …): activity, not a response head.
        // The hop's response is made at its first body byte (TransferEngine+Schemes).
        guard scheme.isHTTP else {
            lastActivity = Monotonic.now()
            if tls == nil, scheme.isTLS { tls = easy.tlsInfo() }  // ftps: after the handshake
            return line.count
        }
        // Parsed on bytes: this runs for every header line of every response (Foundation's
        // trimming showed up as a third of the small-request benchmark's CPU).
        let bytes = line.bindMemory(to: UInt8.self)
        let body = HeaderLine.trimmed(bytes)
        let isStatusLine = bytes.starts(with: HeaderLine.httpPrefix)
        // Every line is activity: a server that trickles its head a line at a time is not idle
        // (the idle timeout counts from `lastActivity`; a review found a head of slow lines
        // timed out when only the first and last were counted).
        let now = Monotonic.now()
        lastActivity = now
        if firstHeaderAt == nil {
            firstHeaderAt = now
            // Only readable while the connection is attached; plain http has none to read.
            if scheme.isTLS { tls = easy.tlsInfo() }
        }
        if isStatusLine {
            statusCode = Self.parseStatus(bytes: body)
            if statusCode >= 100 && statusCode < 200 { informationalHeads += 1 }
            // Room for a usual head at once (growing to 1, 2, 4, 8 and 16 allocated five times).
            responseHeaders = []
            responseHeaders.reserveCapacity(16)
            exchange.headBegan()
        } else if body.isEmpty {
            if statusCode >= 200 || statusCode == 0 {
                engine.responseHeadComplete(self)
            }
        } else if let colon = body.firstIndex(of: UInt8(ascii: ":")) {
            let name = String(decoding: body[..<colon], as: UTF8.self)
            let value = String(decoding: HeaderLine.trimmed(body[(colon + 1)...]), as: UTF8.self)
            responseHeaders.append(HTTPHeader(name, value))
        }
        return line.count
    }

    /// A file or data: body. libcurl 7.88's file protocol reads the whole file inside one
    /// `curl_multi_perform` call and cannot pause (a PAUSE from here becomes
    /// CURLE_WRITE_ERROR): so this callback never pauses (a slow delegate's chunks and bytes
    /// held for a disposition are buffered), publishes progress itself every progress
    /// interval (the monitor would otherwise see 0 % until the copy ended), and ends the copy
    /// when the task is being cancelled, as the engine's cancel command waits behind it.
    func receiveLocalBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        let now = Monotonic.now()
        lastActivity = now
        lastByteAt = now
        touch()
        if response == nil { engine.beginByteStreamResponse(self) }
        if exchange.restartsFromZero || sinkFailure != nil { return 0 }
        if task.state == .canceling {
            sinkFailure = TransferError.cancelled(url: Redaction.redactURL(task.originalRequest.url.absoluteString))
            return 0
        }
        // The copy runs inside one perform, out of the timer scan's reach: the resource timeout
        // is checked here, and the size limit as for any body (a device never ends).
        if now - lastLocalPublish >= TransferEngine.progressInterval, let d = engine.deadlines(self),
           let expired = engine.expiredTimer(self, d, now: now) {
            sinkFailure = expired
            return 0
        }
        if !admitsBody(bytes.count) { return 0 }
        if exchange.isAwaitingDisposition {
            held.append(contentsOf: bytes)
        } else {
            switch sink {
            case .collect: collected.append(contentsOf: bytes)
            case .delegate:
                pending.append(contentsOf: bytes)
                if pending.count >= TransferEngine.deliveryChunk {
                    engine.flushData(self)
                    // libcurl copies a whole local body inside one perform: the chunks go out
                    // now, not at the end of the turn, or all of a 4 GiB file would wait in the
                    // outbox (DECISIONS 136; found in review).
                    engine.outbox.flush()
                }
            case .file:
                if !writeToFile(bytes) { return 0 }
            }
        }
        hopReceived += Int64(bytes.count)
        if now - lastLocalPublish >= TransferEngine.progressInterval {
            lastLocalPublish = now
            engine.publishProgress(self, now: now)
            engine.outbox.flush()  // progress while the copy runs, not all of it at its end
        }
        return bytes.count
    }

    /// `parseStatus` on the line's bytes: `HTTP/x SP DDD (SP …)` read in place, anything else
    /// through the string version (no string made for every response).
    static func parseStatus(bytes line: Slice<UnsafeBufferPointer<UInt8>>) -> Int {
        if let space = line.firstIndex(of: 0x20) {
            let code = line[(space + 1)...].prefix(4)
            if code.count >= 3, code.prefix(3).allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), code.count == 3 || code.last == 0x20 {
                return code.prefix(3).reduce(0) { $0 * 10 + Int($1 - 0x30) }
            }
        }
        return parseStatus(String(decoding: line, as: UTF8.self))
    }

    static func parseStatus(_ line: String) -> Int {
        let parts = line.split(separator: " ", maxSplits: 2)
        return parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
    }

    /// Body bytes: into memory, to the delegate, or to the file. Returning anything but
    /// `count` (or PAUSE) makes libcurl fail the transfer with CURLE_WRITE_ERROR.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        if !scheme.needsHost { return receiveLocalBody(bytes) }
        if flow.isSuspended { return Int(CURL_WRITEFUNC_PAUSE) }
        let now = Monotonic.now()
        if !rateGuard.admits(bytes.count, now: now) {
            ratePaused = true
            return Int(CURL_WRITEFUNC_PAUSE)  // libcurl keeps these bytes and stops reading
        }
        lastActivity = now
        lastByteAt = now
        touch()
        if response == nil, !scheme.isHTTP { engine.beginByteStreamResponse(self) }
        // A refused response (e.g. an unsolicited 206) takes no byte.
        if sinkFailure != nil { return 0 }
        switch exchange.bodyRoute {
        case .abort: return 0  // this body must not touch the file (a restart from zero)
        case .discard: return bytes.count
        case .keepAside:
            if redirectBody.count < 64 * 1024 { redirectBody.append(contentsOf: bytes) }
            return bytes.count
        case .hold, .deliver: break
        }
        if !admitsBody(bytes.count) { return 0 }
        if exchange.isAwaitingDisposition {
            if held.count > 16 * 1024 * 1024 {
                flow.hold(.disposition)
                return Int(CURL_WRITEFUNC_PAUSE)
            }
            held.append(contentsOf: bytes)
            if cacheCapture != nil { engine.httpCache?.capture(self, bytes) }
            hopReceived += Int64(bytes.count)
            return bytes.count
        }
        switch sink {
        case .collect: collected.append(contentsOf: bytes)
        case .delegate:
            if flow.isHeld(.backpressure) || chunksInFlight.withLock({ $0 }) >= TransferEngine.highWater {
                flow.hold(.backpressure)
                return Int(CURL_WRITEFUNC_PAUSE)  // libcurl keeps these bytes and stops reading
            }
            pending.append(contentsOf: bytes)
            if pending.count >= TransferEngine.deliveryChunk { engine.flushData(self) }
        case .file:
            if !writeToFile(bytes) { return 0 }
        }
        if cacheCapture != nil { engine.httpCache?.capture(self, bytes) }
        hopReceived += Int64(bytes.count)
        return bytes.count
    }

    /// What went wrong writing the download, in one line: the file and how much is in it.
    /// What to do is added when the task ends (`writeAdvice`), once it is known whether the
    /// partial file is kept.
    static func writeFailure(_ code: Int32, path: String?, written: Int64) -> TransferError {
        let reason = String(cString: strerror(code))
        let place = path.map { " \($0)" } ?? ""
        return TransferError(.cannotWriteToFile, "cannot write\(place): \(reason) after \(written) bytes")
    }

    /// What to do after a failed write: with resume data, run again to continue; without
    /// (a decoded body, or a response that cannot be resumed) the partial file is removed,
    /// so a run again starts over. Only for a full disk or a size limit.
    static func writeAdvice(_ code: Int32, resumable: Bool) -> String {
        guard code == ENOSPC || code == EDQUOT || code == EFBIG else { return "" }
        return resumable
            ? "; free some space (or raise the limit) and run again to continue from there"
            : "; the partial file was removed (this download cannot be continued: decoded, or not resumable); free some space and run again to start over"
    }

    /// Writes every byte or records why it could not (disk full, file gone).
    func writeToFile(_ bytes: UnsafeRawBufferPointer) -> Bool {
        switch DownloadStorage.store(count: bytes.count, held: smallBody.count, fileOpen: fileDescriptor >= 0) {
        case .hold:
            smallBody.append(contentsOf: bytes)
            fileOffset += Int64(bytes.count)
            return true
        case .createFileThenWrite:
            guard engine.downloads.create(for: self, partialDirectory: engine.partialDirectory) else { return false }
            engine.downloads.recordCrashRecovery(self, resumable: engine.currentResumability(self).isResumable)  // a body this long is worth continuing after a crash
        case .write:
            break
        }
        var done = 0
        while done < bytes.count {
            let n = Foundation.write(fileDescriptor, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                writeErrno = errno
                sinkFailure = Self.writeFailure(errno, path: fileURL?.path, written: fileOffset)
                return false
            }
            done += n
        }
        fileOffset += Int64(bytes.count)
        return true
    }

    /// Request body bytes, from memory or streamed from a file.
    func supplyBody(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        if flow.isSuspended { return Int(CURL_READFUNC_PAUSE) }
        lastActivity = Monotonic.now()
        touch()
        var n = 0
        switch task.upload {
        case .data(let d):
            let start = Int(uploadOffset)
            n = min(buffer.count, d.count - start)
            if n > 0 { d.copyBytes(to: buffer.bindMemory(to: UInt8.self), from: start..<(start + n)) }
        case .file:
            n = pread(uploadFD, buffer.baseAddress, buffer.count, off_t(uploadOffset))
            if n < 0 { return Int(CURL_READFUNC_ABORT) }
        case .streamed:
            switch bodyPump?.take(into: buffer) {
            case .bytes(let count)?: n = count
            case .wouldBlock?:
                flow.hold(.body)
                return Int(CURL_READFUNC_PAUSE)
            case .end?, nil: n = 0
            case .failed(let e)?:
                sinkFailure = e
                return Int(CURL_READFUNC_ABORT)
            }
        case .segments:
            switch uploadSegments?.read(into: buffer, at: uploadOffset) {
            case .success(let count)?: n = count
            case .failure(let e)?:
                sinkFailure = e  // the task fails with this, not libcurl's "aborted by callback"
                return Int(CURL_READFUNC_ABORT)
            case nil: return Int(CURL_READFUNC_ABORT)
            }
        case nil:
            n = 0
        }
        uploadOffset += Int64(n)
        hopSent += Int64(n)
        if n > 0 { lastBodySentAt = Monotonic.now() }
        return n
    }

    /// libcurl rewinds the body for redirects (307/308) and retries.
    func seekBody(_ offset: Int64, origin: Int32) -> Int32 {
        guard origin == SEEK_SET else { return 2 }  // CURL_SEEKFUNC_CANTSEEK
        if case .streamed? = task.upload, offset != uploadOffset { return 2 }  // a stream cannot rewind
        hopSent -= uploadOffset - offset
        uploadOffset = offset
        return 0  // CURL_SEEKFUNC_OK
    }
}

/// Byte-level helpers for header lines.
enum HeaderLine {
    static let httpPrefix = Array("HTTP/".utf8)

    /// The slice without leading and trailing spaces, tabs, CR and LF.
    static func trimmed<C: BidirectionalCollection>(_ c: C) -> C.SubSequence where C.Element == UInt8 {
        func blank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A }
        var start = c.startIndex, end = c.endIndex
        while start != end, blank(c[start]) { start = c.index(after: start) }
        while end != start, blank(c[c.index(before: end)]) { end = c.index(before: end) }
        return c[start..<end]
    }
}
