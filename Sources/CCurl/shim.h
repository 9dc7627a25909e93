// Typed, non-variadic wrappers over libcurl and the few OpenSSL calls we need.
//
// Why this file exists: Swift cannot call C variadic functions (curl_easy_setopt,
// curl_easy_getinfo, curl_multi_setopt, curl_share_setopt), and it does not import the
// CURLAUTH_* cast macros. One wrapper per argument type keeps every call typed.
#ifndef TRANSFERKIT_CCURL_SHIM_H
#define TRANSFERKIT_CCURL_SHIM_H

#include <curl/curl.h>
#include <sys/prctl.h>
// SHA256_Init/Update/Final (tk_sha256_*) are deprecated in OpenSSL 3 (see there).
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/ssl.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <openssl/x509_vfy.h>
#include <openssl/err.h>
#include <stdint.h>
#include <string.h>

// MARK: threads

// Names the calling thread for `top -H` and /proc/PID/task/TID/comm (at most 15 bytes are
// kept). prctl is variadic, so Swift cannot call it directly.
static inline void tk_set_thread_name(const char *_Nonnull name) {
    prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}

// MARK: version

// The loaded libcurl's version number ("7.88.1"). CURLVERSION_NOW is a macro naming an enum
// constant, which Swift does not import.
static inline const char *_Nullable tk_curl_version_number(void) {
    const curl_version_info_data *d = curl_version_info(CURLVERSION_NOW);
    return d ? d->version : NULL;
}

// MARK: easy setopt, one per argument type

static inline CURLcode tk_easy_setopt_long(CURL *_Nonnull h, CURLoption o, long v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode tk_easy_setopt_off(CURL *_Nonnull h, CURLoption o, curl_off_t v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode tk_easy_setopt_ptr(CURL *_Nonnull h, CURLoption o, const void *_Nullable v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode tk_easy_setopt_str(CURL *_Nonnull h, CURLoption o, const char *_Nullable v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode tk_easy_setopt_slist(CURL *_Nonnull h, CURLoption o, struct curl_slist *_Nullable v) {
    return curl_easy_setopt(h, o, v);
}

typedef size_t (*tk_data_callback)(char *_Nonnull, size_t, size_t, void *_Nullable);
typedef int (*tk_xferinfo_callback)(void *_Nullable, curl_off_t, curl_off_t, curl_off_t, curl_off_t);
typedef int (*tk_prereq_callback)(void *_Nullable, char *_Nullable, char *_Nullable, int, int);
typedef curl_socket_t (*tk_opensocket_callback)(void *_Nullable, curlsocktype, struct curl_sockaddr *_Nonnull);
typedef int (*tk_closesocket_callback)(void *_Nullable, curl_socket_t);
typedef int (*tk_seek_callback)(void *_Nullable, curl_off_t, int);

static inline CURLcode tk_easy_setopt_data_cb(CURL *_Nonnull h, CURLoption o, tk_data_callback _Nullable cb) {
    return curl_easy_setopt(h, o, cb);
}
static inline CURLcode tk_easy_setopt_xferinfo_cb(CURL *_Nonnull h, tk_xferinfo_callback _Nullable cb) {
    return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, cb);
}
static inline CURLcode tk_easy_setopt_prereq_cb(CURL *_Nonnull h, tk_prereq_callback _Nullable cb) {
    return curl_easy_setopt(h, CURLOPT_PREREQFUNCTION, cb);
}
typedef int (*tk_resolver_start_callback)(void *_Nullable, void *_Nullable, void *_Nullable);
typedef int (*tk_sockopt_callback)(void *_Nullable, curl_socket_t, curlsocktype);
static inline CURLcode tk_easy_setopt_resolver_start_cb(CURL *_Nonnull h, tk_resolver_start_callback _Nullable cb) {
    return curl_easy_setopt(h, CURLOPT_RESOLVER_START_FUNCTION, cb);
}
static inline CURLcode tk_easy_setopt_sockopt_cb(CURL *_Nonnull h, tk_sockopt_callback _Nullable cb) {
    return curl_easy_setopt(h, CURLOPT_SOCKOPTFUNCTION, cb);
}
static inline CURLcode tk_easy_setopt_seek_cb(CURL *_Nonnull h, tk_seek_callback _Nullable cb) {
    return curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, cb);
}
typedef int (*tk_debug_callback)(CURL *_Nonnull, curl_infotype, char *_Nonnull, size_t, void *_Nullable);
static inline CURLcode tk_easy_setopt_debug_cb(CURL *_Nonnull h, tk_debug_callback _Nullable cb) {
    return curl_easy_setopt(h, CURLOPT_DEBUGFUNCTION, cb);
}

// MARK: easy getinfo, one per result type

static inline CURLcode tk_easy_getinfo_long(CURL *_Nonnull h, CURLINFO i, long *_Nonnull out) {
    return curl_easy_getinfo(h, i, out);
}
static inline CURLcode tk_easy_getinfo_off(CURL *_Nonnull h, CURLINFO i, curl_off_t *_Nonnull out) {
    return curl_easy_getinfo(h, i, out);
}
static inline CURLcode tk_easy_getinfo_str(CURL *_Nonnull h, CURLINFO i, const char *_Nullable *_Nonnull out) {
    char *p = NULL;
    CURLcode rc = curl_easy_getinfo(h, i, &p);
    *out = p;
    return rc;
}
static inline CURLcode tk_easy_getinfo_ptr(CURL *_Nonnull h, CURLINFO i, void *_Nullable *_Nonnull out) {
    char *p = NULL;
    CURLcode rc = curl_easy_getinfo(h, i, &p);
    *out = p;
    return rc;
}

// MARK: multi and share setopt

static inline CURLMcode tk_multi_setopt_long(CURLM *_Nonnull m, CURLMoption o, long v) {
    return curl_multi_setopt(m, o, v);
}
static inline CURLSHcode tk_share_setopt_long(CURLSH *_Nonnull s, CURLSHoption o, long v) {
    return curl_share_setopt(s, o, v);
}
typedef void (*tk_share_lock_cb)(CURL *_Nullable, curl_lock_data, curl_lock_access, void *_Nullable);
typedef void (*tk_share_unlock_cb)(CURL *_Nullable, curl_lock_data, void *_Nullable);
static inline CURLSHcode tk_share_set_locks(CURLSH *_Nonnull s, tk_share_lock_cb _Nonnull lock,
                                            tk_share_unlock_cb _Nonnull unlock, void *_Nullable ctx) {
    CURLSHcode rc = curl_share_setopt(s, CURLSHOPT_LOCKFUNC, lock);
    if (rc != CURLSHE_OK) return rc;
    rc = curl_share_setopt(s, CURLSHOPT_UNLOCKFUNC, unlock);
    if (rc != CURLSHE_OK) return rc;
    return curl_share_setopt(s, CURLSHOPT_USERDATA, ctx);
}

// MARK: constants Swift does not import (cast macros)

static const unsigned long TK_CURLAUTH_BASIC = CURLAUTH_BASIC;
static const unsigned long TK_CURLAUTH_DIGEST = CURLAUTH_DIGEST;
static const unsigned long TK_CURLAUTH_ANY = CURLAUTH_ANY;
static const unsigned long TK_CURLAUTH_NONE = CURLAUTH_NONE;
static const long TK_CURL_SOCKET_BAD = (long)CURL_SOCKET_BAD;

// MARK: CURLMsg accessors (the union is awkward from Swift)

static inline CURL *_Nullable tk_msg_easy(CURLMsg *_Nonnull m) { return m->easy_handle; }
static inline CURLcode tk_msg_result(CURLMsg *_Nonnull m) { return m->data.result; }
static inline int tk_msg_is_done(CURLMsg *_Nonnull m) { return m->msg == CURLMSG_DONE; }

// MARK: TLS facts, read while the connection is attached (libcurl forgets them after DONE)

/// Writes the negotiated TLS version and cipher names into the buffers, and whether the
/// handshake resumed an earlier TLS session. Returns 1 when the handle has a live OpenSSL
/// connection, 0 otherwise.
static inline int tk_tls_info(CURL *_Nonnull h, char *_Nonnull version, size_t vlen,
                              char *_Nonnull cipher, size_t clen, int *_Nonnull resumed) {
    struct curl_tlssessioninfo *info = NULL;
    if (curl_easy_getinfo(h, CURLINFO_TLS_SSL_PTR, &info) != CURLE_OK || info == NULL) return 0;
    if (info->backend != CURLSSLBACKEND_OPENSSL || info->internals == NULL) return 0;
    SSL *ssl = (SSL *)info->internals;
    const char *v = SSL_get_version(ssl);
    const char *c = SSL_get_cipher_name(ssl);
    if (v == NULL || c == NULL) return 0;
    strncpy(version, v, vlen - 1); version[vlen - 1] = 0;
    strncpy(cipher, c, clen - 1); cipher[clen - 1] = 0;
    *resumed = SSL_session_reused(ssl) ? 1 : 0;
    return 1;
}

// MARK: a trust store loaded once per session

// libcurl 7.88 parses CAINFO into a fresh X509 store for every new connection, after the
// ClientHello went out, so ~20-30 ms of our own CPU landed in each handshake's "TLS" time.
// The engine loads one store per session instead and hands it to every SSL_CTX here.

/// A new store holding the certificates of `file` (PEM, may be NULL) and, lazily by subject
/// hash, of directory `dir` (may be NULL), with libcurl's own verification flags. `*loaded`
/// gets 1 when `file` was read (or was NULL), 0 when it could not be. NULL when out of memory.
static inline X509_STORE *_Nullable tk_trust_store_new(const char *_Nullable file,
                                                       const char *_Nullable dir, int *_Nonnull loaded) {
    X509_STORE *st = X509_STORE_new();
    if (st == NULL) return NULL;
    *loaded = (file == NULL || X509_STORE_load_file(st, file) == 1) ? 1 : 0;
    if (dir != NULL) (void)X509_STORE_load_path(st, dir);
    // As libcurl's populate_x509_store: trusted issuers first, and intermediates as anchors.
    X509_STORE_set_flags(st, X509_V_FLAG_TRUSTED_FIRST | X509_V_FLAG_PARTIAL_CHAIN);
    ERR_clear_error();
    return st;
}

/// Adds the certificates of another PEM file; 1 when it was read.
static inline int tk_trust_store_add_file(X509_STORE *_Nonnull st, const char *_Nonnull file) {
    int ok = X509_STORE_load_file(st, file) == 1;
    ERR_clear_error();
    return ok;
}

static inline void tk_trust_store_free(X509_STORE *_Nonnull st) { X509_STORE_free(st); }

static CURLcode tk_ssl_ctx_use_store(CURL *_Nonnull curl, void *_Nonnull sslctx, void *_Nonnull store) {
    (void)curl;
    SSL_CTX_set1_cert_store((SSL_CTX *)sslctx, (X509_STORE *)store);  // takes its own reference
    return CURLE_OK;
}

/// Makes every new TLS connection of this handle verify against `store`, and stops libcurl
/// from loading CA files of its own (CAINFO and CAPATH unset; its per-multi CA cache off).
static inline CURLcode tk_easy_use_trust_store(CURL *_Nonnull h, X509_STORE *_Nonnull store) {
    CURLcode rc;
    if ((rc = curl_easy_setopt(h, CURLOPT_CAINFO, NULL)) != CURLE_OK) return rc;
    if ((rc = curl_easy_setopt(h, CURLOPT_CAPATH, NULL)) != CURLE_OK) return rc;
    if ((rc = curl_easy_setopt(h, CURLOPT_CA_CACHE_TIMEOUT, 0L)) != CURLE_OK) return rc;
    if ((rc = curl_easy_setopt(h, CURLOPT_SSL_CTX_FUNCTION, tk_ssl_ctx_use_store)) != CURLE_OK) return rc;
    return curl_easy_setopt(h, CURLOPT_SSL_CTX_DATA, store);
}

/// libcurl's built-in CA bundle and directory (Debian: /etc/ssl/certs/ca-certificates.crt and
/// /etc/ssl/certs), read from a handle that has not been changed; NULL when not built in.
static inline const char *_Nullable tk_default_ca_info(CURL *_Nonnull h, int path) {
    char *v = NULL;
    if (curl_easy_getinfo(h, path ? CURLINFO_CAPATH : CURLINFO_CAINFO, &v) != CURLE_OK) return NULL;
    return v;
}

// MARK: SHA-256 (resume-data integrity, file and segment checksums, the journal's keys)

// OpenSSL's own SHA-256 functions, not EVP: EVP's first fetch sets up the default provider's
// digests, about 5 million instructions, which a plain-HTTP run of one URL paid for its two
// short hashes, and every EVP set-up after it allocates. Deprecated in OpenSSL 3 but still part
// of its API (OPENSSL_SUPPRESS_DEPRECATED above); they run the same assembly.
typedef struct tk_sha256_ctx { SHA256_CTX c; } tk_sha256_ctx;

static inline tk_sha256_ctx tk_sha256_begin(void) {
    tk_sha256_ctx c;
    SHA256_Init(&c.c);
    return c;
}
static inline void tk_sha256_update(tk_sha256_ctx *_Nonnull c, const void *_Nullable p, size_t n) {
    if (p && n > 0) SHA256_Update(&c->c, p, n);
}
/// Writes 32 bytes into out.
static inline void tk_sha256_end(tk_sha256_ctx *_Nonnull c, unsigned char *_Nonnull out) {
    SHA256_Final(out, &c->c);
}
/// The 32-byte digest of n bytes into out, in one call.
static inline void tk_sha256(const void *_Nullable p, size_t n, unsigned char *_Nonnull out) {
    tk_sha256_ctx c = tk_sha256_begin();
    tk_sha256_update(&c, p, n);
    tk_sha256_end(&c, out);
}

/// MD5 of n bytes into 16 bytes of out: HTTP Digest authentication (RFC 7616's MD5
/// algorithm) in the loopback server that the tests run; nothing else uses MD5.
static inline void tk_md5(const void *_Nullable p, size_t n, unsigned char *_Nonnull out) {
    unsigned int len = 0;
    EVP_Digest(p, n, out, &len, EVP_md5(), NULL);
}

// MARK: files

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

// rename(2) that fails with EEXIST instead of replacing the target (Linux 3.15+; EINVAL on
// file systems without it). glibc's renameat2 wrapper is not imported into Swift, and
// syscall(2) is variadic, so Swift cannot call either directly.
static inline int tk_rename_noreplace(const char *_Nonnull from, const char *_Nonnull to) {
#if defined(SYS_renameat2)
    return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, 1 /* RENAME_NOREPLACE */);
#else
    errno = ENOSYS;
    return -1;
#endif
}

// A new file with no name in `dir` (O_TMPFILE, Linux 3.11+; EOPNOTSUPP or EISDIR where the
// file system cannot). glibc defines O_TMPFILE only under _GNU_SOURCE, which this header does
// not set; its __O_TMPFILE is always there.
static inline int tk_open_unnamed(const char *_Nonnull dir, unsigned int mode) {
#if defined(__O_TMPFILE)
    return open(dir, __O_TMPFILE | O_DIRECTORY | O_WRONLY | O_CLOEXEC, mode);
#else
    errno = EOPNOTSUPP;
    return -1;
#endif
}

// Gives the unnamed file `fd` its name `to`; fails with EEXIST rather than replace a file.
// AT_EMPTY_PATH first: Linux 6.10+ allows it to the process that opened the file (before,
// only with CAP_DAC_READ_SEARCH), and it skips the walk through /proc, a fifth of the link's
// cost per small file. Refused (ENOENT where /proc/self/fd works): through /proc,
// remembered for the rest of the process (ENOENT there too without /proc).
static inline int tk_link_unnamed(int fd, const char *_Nonnull to) {
    static int emptyPathRefused = 0;
    int tried = 0;
    if (!__atomic_load_n(&emptyPathRefused, __ATOMIC_RELAXED)) {
        // AT_EMPTY_PATH (0x1000) is only declared with _GNU_SOURCE, which the build leaves out.
        int rc = linkat(fd, "", AT_FDCWD, to, 0x1000);
        if (rc == 0 || errno != ENOENT) return rc;
        tried = 1;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    int rc = linkat(AT_FDCWD, path, AT_FDCWD, to, AT_SYMLINK_FOLLOW);
    // Only /proc worked (or failed otherwise): this kernel refuses AT_EMPTY_PATH to us.
    if (tried && (rc == 0 || errno != ENOENT)) __atomic_store_n(&emptyPathRefused, 1, __ATOMIC_RELAXED);
    return rc;
}

// MARK: server trust: the chain a failed verification saw, and a leaf's pin

#include <openssl/pem.h>

// The PEM of certificate `i` of a transfer made with CURLOPT_CERTINFO (libcurl collects the
// chain before it checks it, so it is there after error 60 too); NULL past the end.
static inline const char *_Nullable tk_certinfo_pem(CURL *_Nonnull h, int i) {
    struct curl_certinfo *ci = NULL;
    if (curl_easy_getinfo(h, CURLINFO_CERTINFO, &ci) != CURLE_OK || !ci || i < 0 || i >= ci->num_of_certs) return NULL;
    for (struct curl_slist *l = ci->certinfo[i]; l; l = l->next) {
        if (strncmp(l->data, "Cert:", 5) == 0) return l->data + 5;
    }
    return NULL;
}

// SHA-256 of a PEM certificate's public key (SubjectPublicKeyInfo, DER): what
// CURLOPT_PINNEDPUBLICKEY's sha256// compares. 1 on success.
static inline int tk_pem_pubkey_sha256(const char *_Nonnull pem, unsigned char *_Nonnull out) {
    BIO *bio = BIO_new_mem_buf(pem, -1);
    if (!bio) return 0;
    X509 *x = PEM_read_bio_X509(bio, NULL, NULL, NULL);
    BIO_free(bio);
    if (!x) return 0;
    unsigned char *der = NULL;
    int n = i2d_PUBKEY(X509_get0_pubkey(x), &der);
    X509_free(x);
    if (n <= 0) return 0;
    SHA256(der, (size_t)n, out);
    OPENSSL_free(der);
    return 1;
}

// The kernel's lowest round-trip time seen on a TCP socket, in microseconds (TCP_INFO's
// min_rtt, Linux 4.9+; else its smoothed RTT): the path's, not our scheduling's, since a busy
// receiver delays ACKs and inflates the smoothed figure. -1 when it cannot be read. glibc's
// struct tcp_info stops before min_rtt, and <linux/tcp.h> clashes with it in Swift's module
// map, so the field is read at its offset in the kernel's struct, an append-only ABI.
#include <netinet/in.h>
#include <netinet/tcp.h>
static inline long tk_tcp_rtt_micros(int s) {
    if (s < 0) return -1;
    uint32_t raw[58];  // the kernel's struct tcp_info is 232 bytes in 6.x; more is never asked for
    memset(raw, 0, sizeof(raw));
    socklen_t len = sizeof(raw);
    if (getsockopt(s, IPPROTO_TCP, TCP_INFO, raw, &len) != 0) return -1;
    const size_t rttAt = 68, minRTTAt = 148;  // offsetof(struct tcp_info, tcpi_rtt / tcpi_min_rtt)
    uint32_t minRTT = 0, rtt = 0;
    if (len >= minRTTAt + 4) memcpy(&minRTT, (const char *)raw + minRTTAt, 4);
    if (minRTT != 0 && minRTT != ~0U) return (long)minRTT;
    if (len < rttAt + 4) return -1;
    memcpy(&rtt, (const char *)raw + rttAt, 4);
    return (long)rtt;
}

// The subject-name hash of a PEM certificate: its name in a CA directory (`c_rehash`'s
// `%08lx.0`), as OpenSSL's directory lookup finds it. 0 when it is not a certificate.
static inline unsigned long tk_pem_subject_hash(const char *_Nonnull pem) {
    BIO *bio = BIO_new_mem_buf(pem, -1);
    if (!bio) return 0;
    X509 *x = PEM_read_bio_X509(bio, NULL, NULL, NULL);
    BIO_free(bio);
    if (!x) { ERR_clear_error(); return 0; }
    unsigned long h = X509_subject_name_hash(x);
    X509_free(x);
    return h;
}

#endif
