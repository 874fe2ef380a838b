/// libFuzzer's own driver (`-sanitize=fuzzer` links it in). Each fuzz target calls this from the symbol SwiftPM aliases to
/// `main` (`<Target>_main`), because an executable target's `main` is renamed and libFuzzer's `main` is never reached.
@_silgen_name("LLVMFuzzerRunDriver")
private func llvmFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

public typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

public func runFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ callback: FuzzCallback
) -> CInt {
    var argc = argc
    var argv = argv
    return llvmFuzzerRunDriver(&argc, &argv, callback)
}

/// The input as a raw buffer; libFuzzer may pass a null pointer for the empty input.
@inline(__always)
public func withInput(_ data: UnsafePointer<UInt8>?, _ count: Int, _ body: (UnsafeRawBufferPointer) -> Void) {
    guard let data else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
    body(UnsafeRawBufferPointer(start: data, count: count))
}
