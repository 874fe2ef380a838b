import FuzzDriver
@_spi(Fuzzing) import KakaoBridge

/// Identity Toolkit's answers, the certificate endpoint's answer and Cache-Control, the backend's answer.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    withInput(data, count) { FuzzEntryPoints.googleReplies($0) }
    return 0
}

@_cdecl("FuzzGoogleReplies_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOneInput)
}
