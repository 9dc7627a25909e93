import CCurl

/// libcurl's process-wide initialisation, done once before the first handle.
///
/// 7.88 reports `threadsafe`, so `curl_global_init` is safe to race; the lazy static makes it
/// happen exactly once anyway.
enum CurlGlobal {
    static let ready: Bool = {
        // CURL_GLOBAL_ALL is a compound macro Swift does not import; its value is 3.
        curl_global_init(3) == CURLE_OK
    }()

    static var versionString: String { String(cString: curl_version()) }
}

/// The libcurl TransferKit runs on, for programs that name it (`transfertop --version`, its
/// User-Agent).
public enum Libcurl {
    /// "8.5.0": the version of the library loaded at run time, from `curl_version()`'s
    /// "libcurl/8.5.0 OpenSSL/3.0.11 …".
    public static var version: String {
        let first = CurlGlobal.versionString.split(separator: " ").first ?? ""
        return first.hasPrefix("libcurl/") ? String(first.dropFirst("libcurl/".count)) : String(first)
    }
}
