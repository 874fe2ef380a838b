import FuzzDriver
@_spi(Fuzzing) import KakaoBridge

/// Compact-JWS split, ID token header and payload JSON, and the claim rules.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    withInput(data, count) { FuzzEntryPoints.idToken($0) }
    return 0
}

@_cdecl("FuzzIDToken_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOneInput)
}
