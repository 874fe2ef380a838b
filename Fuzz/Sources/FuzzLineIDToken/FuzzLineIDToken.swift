import FuzzDriver
@_spi(Fuzzing) import KakaoBridge

/// LINE ID tokens: told apart by the issuer, header rules (ES256 with kid, HS256), the claim rules, and the JWKS answer.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    withInput(data, count) { FuzzEntryPoints.lineIDToken($0) }
    return 0
}

@_cdecl("FuzzLineIDToken_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOneInput)
}
