import FuzzDriver
@_spi(Fuzzing) import KakaoBridge

/// Naver's unlink callback (form, signature, client, time, decryption) and `/v1/nid/me`'s answers.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    withInput(data, count) { FuzzEntryPoints.naverUnlink($0) }
    return 0
}

@_cdecl("FuzzNaverUnlink_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOneInput)
}
