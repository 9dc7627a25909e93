import Foundation
import Testing
@testable import TransferKit

/// A session's delegate roles, looked up at run time or taken from the delegate's type: the
/// same roles either way.
@Suite struct DelegateRolesTests {
    final class TaskOnly: TransferTaskDelegate, @unchecked Sendable {}

    @Test func aDownloadDelegatesTypeGivesBothRolesAsTheLookUpDoes() {
        let delegate = Recorder()
        let typed = TransferSession(configuration: .ephemeral, delegate: delegate, name: "typed")
        let existential: any TransferSessionDelegate = delegate
        let looked = TransferSession(configuration: .ephemeral, delegate: existential, name: "looked")
        defer {
            typed.invalidateAndCancel()
            looked.invalidateAndCancel()
        }
        for session in [typed, looked] {
            let roles = session.delegateRoles
            #expect(roles.task === delegate)
            #expect(roles.download === delegate)
        }
        #expect(!typed.delegateRoles.lookedUp, "a concrete download delegate takes the typed initializer")
        #expect(looked.delegateRoles.lookedUp)
    }

    @Test func aDelegateWithoutTheDownloadRoleIsLookedUp() {
        let session = TransferSession(configuration: .ephemeral, delegate: TaskOnly(), name: "task only")
        defer { session.invalidateAndCancel() }
        #expect(session.delegateRoles.task != nil)
        #expect(session.delegateRoles.download == nil)
        #expect(session.delegateRoles.lookedUp)
    }
}
