import FuzzDriver
@_spi(Fuzzing) import KakaoBridge

/// Kakao's token info, profile and error answers.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    withInput(data, count) { FuzzEntryPoints.kakaoReplies($0) }
    return 0
}

@_cdecl("FuzzKakaoReplies_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOneInput)
}
