import Foundation
import GRDB
import TestSupport
@testable import BackgroundJournal

/// A journal path in a fresh private directory; `sub` puts it in directories not yet made.
func journalPath(_ sub: String = "") throws -> String {
    let dir = try privateDirectory("journal")
    return sub.isEmpty ? "\(dir)/journal.sqlite" : "\(dir)/\(sub)/journal.sqlite"
}

/// Opens a journal that must open without a notice.
func openJournal(_ path: String) throws -> Journal {
    let (journal, notice) = try Journal.open(at: path)
    guard notice == nil else { throw JournalError("unexpected notice: \(notice!)") }
    return journal
}

func json(_ text: String) -> Data { Data(text.utf8) }

func mode(_ path: String) -> mode_t {
    var info = stat()
    return stat(path, &info) == 0 ? info.st_mode & 0o777 : 0
}

func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

/// A second, independent connection on the file: what another process sees.
func otherConnection(_ path: String) throws -> DatabaseQueue {
    var config = Configuration()
    config.readonly = true
    config.busyMode = .timeout(5)
    return try DatabaseQueue(path: path, configuration: config)
}

/// The `.corrupt-…` path a notice names.
func movedPath(in notice: String, of path: String) -> String? {
    notice.split(separator: " ").map(String.init).first { $0.hasPrefix(path + ".corrupt-") }
}

func write(_ data: Data, to path: String) throws { try data.write(to: URL(fileURLWithPath: path)) }
