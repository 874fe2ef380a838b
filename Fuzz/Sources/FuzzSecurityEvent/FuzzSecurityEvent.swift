import FuzzDriver
@_spi(Fuzzing) import KakaoBridge

/// Kakao security event tokens: the body read as a SET, the claim rules, the event types.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    withInput(data, count) { FuzzEntryPoints.securityEvent($0) }
    return 0
}

@_cdecl("FuzzSecurityEvent_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOneInput)
}
