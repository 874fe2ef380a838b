#if os(Linux)
import CCurl  // its shim.h brings in <sys/eventfd.h>
import Glibc

/// An eventfd that any thread can signal to cut the curl thread's wait short (new work, a cancellation, shutdown).
/// Linux only (eventfd). `signal()`: **any thread**; `drain()`: **curl thread only**.
///
/// The multi_socket API leaves waiting to us, so curl_multi_wakeup (which only interrupts curl_multi_poll) is of no use.
final class WakeSignal: Sendable {
    let descriptor: Int32

    init() throws(HTTPClientError) {
        let fd = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        guard fd >= 0 else {
            throw HTTPClientError(kind: .transfer, call: "eventfd", message: String(cString: strerror(errno)))
        }
        descriptor = fd
    }

    deinit {
        close(descriptor)
    }

    /// Callable from any thread. A full counter (EAGAIN) still leaves the descriptor readable, so nothing is lost.
    func signal() {
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// Curl thread: resets the counter so the next wait blocks again.
    func drain() {
        var count: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &count) { read(descriptor, $0.baseAddress, $0.count) }
    }
}
#endif  // Other platforms stop at the #error in SocketPoller.swift.
