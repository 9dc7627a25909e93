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

}

/// The libcurl TransferKit runs on, for programs that name it (`transfertop --version`, its
/// User-Agent).
public enum Libcurl {
    /// "7.88.1": the version of the library loaded at run time, from `curl_version_info`.
    /// Not from `curl_version()`: its text names libldap's version, and asking libldap
    /// initialises it, which loads every SASL plugin on the system (eight libraries and
    /// libdb here, about a millisecond of every run's start-up, for a User-Agent).
    public static var version: String {
        tk_curl_version_number().map { String(cString: $0) } ?? "unknown"
    }
}
