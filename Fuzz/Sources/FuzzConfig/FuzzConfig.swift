import FuzzDriver
@_spi(Fuzzing) import KakaoBridge

/// The YAML configuration loader with a BRIDGE_* override and validation.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    withInput(data, count) { FuzzEntryPoints.config($0) }
    return 0
}

@_cdecl("FuzzConfig_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOneInput)
}
