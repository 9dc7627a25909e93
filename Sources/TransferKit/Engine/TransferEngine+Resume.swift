import Foundation

extension TransferEngine {
    /// Resume data for a download stopped at its current offset (issue 4).
    func makeResumeData(_ t: Transfer) -> Data? {
        nil
    }
}
