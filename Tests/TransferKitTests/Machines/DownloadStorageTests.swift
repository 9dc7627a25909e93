import Testing
@testable import TransferKit

/// Where a download's bytes go and what its end does with them, as decisions: no files.
@Suite struct DownloadStorageTests {
    let limit = DownloadStorage.memoryLimit

    @Test func bytesWaitInMemoryUntilTheyOutgrowTheLimit() {
        #expect(DownloadStorage.store(count: 10, held: 0, fileOpen: false) == .hold)
        #expect(DownloadStorage.store(count: limit - 10, held: 10, fileOpen: false) == .hold)
        #expect(DownloadStorage.store(count: 1, held: limit, fileOpen: false) == .createFileThenWrite)
        #expect(DownloadStorage.store(count: 1, held: 0, fileOpen: true) == .write)
    }

    @Test func aSmallSuccessIsWrittenOnceFromMemory() {
        #expect(DownloadStorage.ending(succeeded: true, keepPartialFile: false, toFile: true, hasFile: false,
                                       descriptorOpen: false) == [.writeMemoryOnce])
    }

    @Test func aLargeSuccessHandsItsOpenFileOver() {
        #expect(DownloadStorage.ending(succeeded: true, keepPartialFile: false, toFile: true, hasFile: true,
                                       descriptorOpen: true) == [.handOverDescriptor])
    }

    @Test func aFailureThatKeepsItsPartialCreatesTheFileFromMemory() {
        #expect(DownloadStorage.ending(succeeded: false, keepPartialFile: true, toFile: true, hasFile: false,
                                       descriptorOpen: false) == [.createFile, .closeDescriptor])
        #expect(DownloadStorage.ending(succeeded: false, keepPartialFile: true, toFile: true, hasFile: true,
                                       descriptorOpen: true) == [.closeDescriptor])
    }

    @Test func aFailureThatKeepsNothingRemovesTheFile() {
        #expect(DownloadStorage.ending(succeeded: false, keepPartialFile: false, toFile: true, hasFile: true,
                                       descriptorOpen: true) == [.closeDescriptor, .removeFile])
        #expect(DownloadStorage.ending(succeeded: false, keepPartialFile: false, toFile: true, hasFile: false,
                                       descriptorOpen: false).isEmpty, "no file was ever made")
    }

    @Test func aBodyInMemoryOrToTheDelegateHasNoFileSteps() {
        #expect(DownloadStorage.ending(succeeded: true, keepPartialFile: false, toFile: false, hasFile: false,
                                       descriptorOpen: false).isEmpty)
        #expect(DownloadStorage.ending(succeeded: false, keepPartialFile: false, toFile: false, hasFile: false,
                                       descriptorOpen: false).isEmpty)
    }
}
