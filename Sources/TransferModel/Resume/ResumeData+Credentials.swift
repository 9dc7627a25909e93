import Foundation

/// Resume data as it may be written to disk by a program that gets its credentials from the
/// user each run: the URL's user info and secret query values are redacted, so a
/// state directory never holds a password; the next run puts its own URL back. Secret headers
/// are never stored at all (`droppedHeaderNames`).
extension ResumeData {
    /// A copy whose URL holds no credentials.
    public func withoutCredentials() -> ResumeData {
        var copy = self
        copy.url = Redaction.redactURL(url)
        return copy
    }

    /// The copy to resume with `url` (the URL the user gave this run): the stored URL must be
    /// that URL redacted. Data saved with no secret in its URL (or after a redirect to another
    /// URL) is returned unchanged; data whose secrets cannot be restored is nil.
    public func restoringCredentials(from url: String) -> ResumeData? {
        if Redaction.redactURL(self.url) == self.url, !self.url.contains(Redaction.credentialPlaceholder),
           !self.url.contains(Redaction.placeholder) {
            return self
        }
        guard Redaction.redactURL(url) == self.url else { return nil }
        var copy = self
        copy.url = url
        return copy
    }
}
