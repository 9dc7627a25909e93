/// The media type of a local or FTP file from its name's extension, as URLResponse's
/// `mimeType` for file and ftp URLs (no server says it). A short table of the common types;
/// anything else is `application/octet-stream`, which is what the bytes are known to be.
public enum FileMIMEType {
    public static func forPath(_ path: String) -> String {
        let name = PartialFileName.lastComponent(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return fallback }
        return table[name[name.index(after: dot)...].lowercased()] ?? fallback
    }

    /// The usual extension of a media type (`txt` for `text/plain`), `bin` when unknown.
    public static func fileExtension(forMediaType type: String) -> String {
        preferredExtension[type.lowercased()] ?? table.first { $0.value == type.lowercased() }?.key ?? "bin"
    }

    static let preferredExtension = ["text/plain": "txt", "text/html": "html", "image/jpeg": "jpg"]

    public static let fallback = "application/octet-stream"

    static let table: [String: String] = [
        "txt": "text/plain", "text": "text/plain", "log": "text/plain", "md": "text/markdown", "csv": "text/csv",
        "html": "text/html", "htm": "text/html", "css": "text/css", "xml": "application/xml",
        "js": "text/javascript", "json": "application/json", "svg": "image/svg+xml",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip", "tar": "application/x-tar",
        "mp3": "audio/mpeg", "mp4": "video/mp4", "wasm": "application/wasm",
    ]
}
