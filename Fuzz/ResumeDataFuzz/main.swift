// libFuzzer target for the resume-data decoder (issue 4: "corrupt resume data gets a clear
// error, never a crash"). Not part of Package.swift: it is compiled together with the
// TransferModel sources it needs, as one module, so no package changes are required.
//
// Build and run from the repository root (see docs/resume-data.md):
//
//   swiftc -sanitize=fuzzer,address -parse-as-library -O -g -module-name ResumeDataFuzz \
//     Fuzz/ResumeDataFuzz/main.swift Sources/TransferModel/Resume/*.swift \
//     Sources/TransferModel/Security/*.swift Sources/TransferModel/Export/JSONValue.swift \
//     Sources/TransferModel/Export/ExportTimestamp.swift Sources/TransferModel/Model/HTTPHeader.swift \
//     Sources/TransferModel/Errors/TransferError.swift -o .build-fuzz/resume-data-fuzz
//   mkdir -p .build-fuzz/corpus && .build-fuzz/resume-data-fuzz -max_total_time=30 .build-fuzz/corpus
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func resumeDataFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    do {
        let decoded = try ResumeData(decoding: data)
        // Whatever decodes must re-encode to something that decodes to the same value.
        guard (try? ResumeData(decoding: decoded.encoded())) == decoded else { fatalError("re-encoding changed the value") }
        _ = ResumeRequestPlan(decoded)
        try? decoded.validate(stateDirectory: "/state", fileSize: { _ in 0 })
    } catch {
        _ = error.description  // every failure is a typed ResumeDataError with a message
    }
    return 0
}
