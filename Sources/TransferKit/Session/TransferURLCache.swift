import BackgroundWire
import Digest
import Foundation

/// A stored response (URLSession's `CachedURLResponse`): the response head, its body, and
/// what the cache needs to judge it (times, the request's values for its Vary headers).
public struct CachedResponse: Sendable, Equatable {
    public var url: String
    public var statusCode: Int
    public var headers: [HTTPHeader]
    public var requestTime: Double
    public var responseTime: Double
    public var varyNames: [String]
    public var varyValues: [String: String]
    public var body: Data

    public init(url: String, statusCode: Int, headers: [HTTPHeader], requestTime: Double, responseTime: Double,
                varyNames: [String], varyValues: [String: String], body: Data) {
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.varyNames = varyNames
        self.varyValues = varyValues
        self.body = body
    }

    public var facts: CachedResponseFacts {
        CachedResponseFacts(statusCode: statusCode, headers: headers, requestTime: requestTime, responseTime: responseTime)
    }

    var cost: Int { body.count + headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count } + url.utf8.count }
}

/// An HTTP cache (URLSession's `URLCache`, DECISIONS 102): a memory part and a
/// disk part, each with a capacity in bytes, least recently used entries evicted first. One
/// response per URL (a GET's); a stored response is used only for a request whose headers
/// match its Vary. The disk part is a directory of one file per URL (a JSON head line, then
/// the body), each written atomically, private to the user; a directory that cannot be
/// written leaves the memory part working and says why in `problem`.
public final class TransferURLCache: @unchecked Sendable, Equatable {
    public let memoryCapacity: Int
    public let diskCapacity: Int
    /// nil: memory only.
    public let directory: String?
    /// A body larger than this is not stored.
    public var maximumEntryBytes: Int { min(max(memoryCapacity, diskCapacity) / 4, 64 << 20) }

    private let state = Locked(State())

    struct State {
        var memory: [String: (entry: CachedResponse, used: UInt64)] = [:]
        var memoryBytes = 0
        var clock: UInt64 = 0
        /// The disk part's files, by key: size and last use (loaded at first use).
        var disk: [String: (size: Int, used: Double)]?
        var diskBytes = 0
        var problem: String?
        var lastDiskUse = 0.0

        /// Now, but always later than the last use: entries stored in one instant keep order.
        mutating func diskUseTime() -> Double {
            lastDiskUse = Swift.max(Date().timeIntervalSince1970, lastDiskUse + 0.000_001)
            return lastDiskUse
        }
    }

    public init(memoryCapacity: Int, diskCapacity: Int, directory: String?) {
        self.memoryCapacity = max(0, memoryCapacity)
        self.diskCapacity = directory == nil ? 0 : max(0, diskCapacity)
        self.directory = directory
    }

    public static func == (a: TransferURLCache, b: TransferURLCache) -> Bool { a === b }

    private static let registry = Locked<[String: TransferURLCache]>([:])

    /// The process's one cache for a directory (default sessions share it).
    public static func persistent(directory: String, memoryCapacity: Int = 4 << 20, diskCapacity: Int = 64 << 20) -> TransferURLCache {
        registry.withLock { r in
            if let c = r[directory] { return c }
            let c = TransferURLCache(memoryCapacity: memoryCapacity, diskCapacity: diskCapacity, directory: directory)
            r[directory] = c
            return c
        }
    }

    /// The cache a session of `kind` uses (`--cache` in the CLI): default and background
    /// sessions share `$XDG_CACHE_HOME/transfertop` (or `cacheDirectory`); an ephemeral one gets
    /// a cache in memory only, its own.
    public static func forKind(_ kind: SessionKind, cacheDirectory: String? = nil) -> TransferURLCache {
        if case .ephemeral = kind { return TransferURLCache(memoryCapacity: 4 << 20, diskCapacity: 0, directory: nil) }
        guard let dir = cacheDirectory ?? Self.defaultDirectory else {
            return TransferURLCache(memoryCapacity: 4 << 20, diskCapacity: 0, directory: nil)
        }
        return persistent(directory: dir)
    }

    /// `$XDG_CACHE_HOME/transfertop`, or `~/.cache/transfertop`.
    public static var defaultDirectory: String? {
        if let x = ProcessEnvironment.value("XDG_CACHE_HOME"), !x.isEmpty { return x + "/transfertop" }
        if let home = ProcessEnvironment.value("HOME"), !home.isEmpty { return home + "/.cache/transfertop" }
        return nil
    }

    public var problem: String? { state.withLock { $0.problem } }
    public var currentMemoryUsage: Int { state.withLock { $0.memoryBytes } }
    public var currentDiskUsage: Int { state.withLock { s in loadDisk(&s); return s.diskBytes } }

    /// The cache key: the URL without its fragment.
    static func key(_ url: URL) -> String {
        var s = url.absoluteString
        if let hash = s.firstIndex(of: "#") { s = String(s[..<hash]) }
        return s
    }

    // MARK: URLCache's API

    /// The stored response for a request, when one matches it (its URL, and its Vary).
    public func cachedResponse(for request: TransferRequest) -> CachedResponse? {
        guard request.httpMethod.uppercased() == "GET" else { return nil }
        let key = Self.key(request.url)
        guard let entry = state.withLock({ s in lookup(&s, key) }) else { return nil }
        guard CacheRules.varyMatches(stored: entry.varyValues, names: entry.varyNames, request: request.headers) else { return nil }
        return entry
    }

    public func storeCachedResponse(_ entry: CachedResponse, for request: TransferRequest) {
        guard entry.body.count <= maximumEntryBytes else { return }
        let key = Self.key(request.url)
        state.withLock { s in
            putMemory(&s, key, entry)
            putDisk(&s, key, entry)
        }
    }

    public func removeCachedResponse(for request: TransferRequest) {
        let key = Self.key(request.url)
        state.withLock { s in remove(&s, key) }
    }

    public func removeAllCachedResponses() {
        state.withLock { s in
            loadDisk(&s)
            for k in Set(s.memory.keys).union(s.disk.map { Array($0.keys) } ?? []) { remove(&s, k) }
        }
    }

    // MARK: inside

    private func remove(_ s: inout State, _ key: String) {
        if let old = s.memory.removeValue(forKey: key) { s.memoryBytes -= old.entry.cost }
        loadDisk(&s)
        if let old = s.disk?.removeValue(forKey: key), let dir = directory {
            s.diskBytes -= old.size
            unlink(dir + "/" + Self.fileName(key))
        }
    }

    private func lookup(_ s: inout State, _ key: String) -> CachedResponse? {
        s.clock &+= 1
        if let hit = s.memory[key] {
            let clock = s.clock
            s.memory.inPlace(key) { $0.used = clock }
            if s.disk?[key] != nil {
                let t = s.diskUseTime()
                s.disk?[key]?.used = t
            }
            return hit.entry
        }
        loadDisk(&s)
        guard let dir = directory, s.disk?[key] != nil else { return nil }
        let path = dir + "/" + Self.fileName(key)
        guard let entry = Self.readEntry(path), entry.url == key else {
            // Unreadable or not ours: forget it (and never crash on a corrupt file).
            if let old = s.disk?.removeValue(forKey: key) { s.diskBytes -= old.size }
            unlink(path)
            return nil
        }
        let used = s.diskUseTime()
        s.disk?[key]?.used = used
        putMemory(&s, key, entry)
        return entry
    }

    private func putMemory(_ s: inout State, _ key: String, _ entry: CachedResponse) {
        if let old = s.memory.removeValue(forKey: key) { s.memoryBytes -= old.entry.cost }
        guard entry.cost <= memoryCapacity else { return }
        s.clock &+= 1
        s.memory[key] = (entry, s.clock)
        s.memoryBytes += entry.cost
        while s.memoryBytes > memoryCapacity, let oldest = s.memory.min(by: { $0.value.used < $1.value.used }) {
            s.memory.removeValue(forKey: oldest.key)
            s.memoryBytes -= oldest.value.entry.cost
        }
    }

    private func putDisk(_ s: inout State, _ key: String, _ entry: CachedResponse) {
        guard let dir = directory, diskCapacity > 0 else { return }
        loadDisk(&s)
        guard s.problem == nil else { return }
        guard let head = try? JSONEncoder().encode(Head(entry)) else { return }
        var bytes = head
        bytes.append(0x0a)
        bytes.append(entry.body)
        guard bytes.count <= diskCapacity else { return }
        let name = Self.fileName(key)
        guard PrivateFile.replace(dir + "/" + name, with: bytes) else {
            s.problem = "cannot write the cache directory '\(SafeQuote.quote(dir))'; the cache is in memory only"
            return
        }
        if let old = s.disk?[key] { s.diskBytes -= old.size }
        let used = s.diskUseTime()
        s.disk?[key] = (bytes.count, used)
        s.diskBytes += bytes.count
        while s.diskBytes > diskCapacity, let oldest = s.disk?.min(by: { $0.value.used < $1.value.used }) {
            s.disk?.removeValue(forKey: oldest.key)
            s.diskBytes -= oldest.value.size
            unlink(dir + "/" + Self.fileName(oldest.key))
        }
    }

    /// The disk index, from the directory's files (their first line names their URL).
    private func loadDisk(_ s: inout State) {
        guard s.disk == nil else { return }
        s.disk = [:]
        guard let dir = directory, diskCapacity > 0 else { return }
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), !isDir.boolValue {
            s.problem = "the cache directory '\(SafeQuote.quote(dir))' is not a directory; the cache is in memory only"
            return
        }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return }
        for name in names where name.hasSuffix(".cache") {
            let path = dir + "/" + name
            guard let attrs = try? FileManager.default.attributesOfItem(atPath: path),
                  let size = (attrs[.size] as? NSNumber)?.intValue,
                  let url = Self.readHead(path)?.url, Self.fileName(url) == name else { continue }
            let used = (attrs[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            s.disk?[url] = (size, used)
            s.diskBytes += size
        }
    }

    static func fileName(_ key: String) -> String { SHA256.hex(utf8: key) + ".cache" }

    /// The head line of an entry file.
    struct Head: Codable {
        var url: String, statusCode: Int, headers: [[String]], requestTime: Double, responseTime: Double
        var varyNames: [String], varyValues: [String: String]
        init(_ e: CachedResponse) {
            url = e.url; statusCode = e.statusCode; headers = e.headers.map { [$0.name, $0.value] }
            requestTime = e.requestTime; responseTime = e.responseTime; varyNames = e.varyNames; varyValues = e.varyValues
        }
    }

    static func readHead(_ path: String) -> Head? {
        guard let fh = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? fh.close() }
        guard let data = try? fh.read(upToCount: 256 * 1024), let nl = data.firstIndex(of: 0x0a) else { return nil }
        return try? JSONDecoder().decode(Head.self, from: data[data.startIndex..<nl])
    }

    static func readEntry(_ path: String) -> CachedResponse? {
        guard let data = FileManager.default.contents(atPath: path), let nl = data.firstIndex(of: 0x0a),
              let head = try? JSONDecoder().decode(Head.self, from: data[data.startIndex..<nl]),
              head.headers.allSatisfy({ $0.count == 2 }) else { return nil }
        return CachedResponse(url: head.url, statusCode: head.statusCode, headers: head.headers.map { HTTPHeader($0[0], $0[1]) },
                              requestTime: head.requestTime, responseTime: head.responseTime, varyNames: head.varyNames,
                              varyValues: head.varyValues, body: Data(data[(nl + 1)...]))
    }
}
