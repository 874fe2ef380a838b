import FuzzDriver
@_spi(Fuzzing) import KakaoBridge

/// Kakao ID tokens: compact-JWS split and header rules, the claim rules, the nonce check, and the JWKS answer.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    withInput(data, count) { FuzzEntryPoints.kakaoIDToken($0) }
    return 0
}

@_cdecl("FuzzKakaoIDToken_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOneInput)
}
