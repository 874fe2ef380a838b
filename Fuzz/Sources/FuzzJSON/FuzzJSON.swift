import FuzzDriver
@_spi(Fuzzing) import KakaoBridge

/// The JSON reader, round-tripped through the writer.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    withInput(data, count) { FuzzEntryPoints.json($0) }
    return 0
}

@_cdecl("FuzzJSON_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOneInput)
}
