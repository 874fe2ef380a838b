#if canImport(Glibc)
import Glibc

/// A named, detached POSIX thread, whose failure to start is a typed `HTTPClientError` naming the call. (Foundation's
/// `Thread` would do as well; this predates Foundation coming back with PostgresNIO: ARCHITECTURE.md, "Foundation".)
enum DetachedThread {
    /// Starts `body` on a new thread named `name` (at most 15 bytes: the kernel's limit), or throws naming the call.
    static func start(name: String, _ body: @escaping @Sendable () -> Void) throws(HTTPClientError) {
        let start = Unmanaged.passRetained(ThreadStart(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let code = pthread_create(&thread, nil, runThreadStart, start)
        guard code == 0 else {
            Unmanaged<ThreadStart>.fromOpaque(start).release()
            throw HTTPClientError(kind: .transfer, call: "pthread_create", message: String(cString: strerror(code)))
        }
        pthread_detach(thread)
    }
}

/// What the new thread runs, handed over as one retained reference.
private final class ThreadStart: Sendable {
    let name: String
    let body: @Sendable () -> Void

    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }
}

private func runThreadStart(_ raw: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let start = Unmanaged<ThreadStart>.fromOpaque(raw!).takeRetainedValue()
    nameThisThread(start.name)
    start.body()
    return nil
}

/// `pthread_setname_np` is a GNU extension that Swift's Glibc module leaves out; the kernel's file for the calling
/// thread's name does the same. Named from inside, so /proc, top and perf show the name from the thread's start.
private func nameThisThread(_ name: String) {
    let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { return }
    defer { close(fd) }
    let bytes = Array(name.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}
#endif
