#if os(Linux)
import CCurl  // its shim.h brings in <sys/epoll.h>
import Glibc

/// The curl thread's epoll set: the sockets curl asks to have watched (through its socket callback) and the wake signal.
/// Linux only (epoll).
///
/// **Curl thread only** (created by `CurlThread.start` before the thread runs). With the multi_socket API curl touches
/// only the transfer whose socket is ready; the older curl_multi_perform loop runs every transfer on each turn and
/// probes each socket with a poll(2) of its own.
final class SocketPoller {
    struct Event {
        var descriptor: Int32
        var readable: Bool
        var writable: Bool
        var failed: Bool
    }

    private static let capacity = 256

    private let epoll: Int32
    private let wakeDescriptor: Int32
    private let buffer: UnsafeMutablePointer<epoll_event>
    /// What each watched socket is registered for, so a change is a MOD and a new socket an ADD.
    private var watched: [Int32: UInt32] = [:]

    init(wake: WakeSignal) throws(HTTPClientError) {
        let fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard fd >= 0 else { throw Self.failure("epoll_create1") }
        epoll = fd
        wakeDescriptor = wake.descriptor
        buffer = .allocate(capacity: Self.capacity)
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = wakeDescriptor
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, wakeDescriptor, &event) == 0 else {
            let error = Self.failure("epoll_ctl(EPOLL_CTL_ADD)")
            close(fd)
            buffer.deallocate()
            throw error
        }
    }

    deinit {
        close(epoll)
        buffer.deallocate()
    }

    /// Watches `socket` for reading and/or writing, or stops watching it when both are false.
    func watch(_ socket: Int32, readable: Bool, writable: Bool) {
        guard readable || writable else {
            if watched.removeValue(forKey: socket) != nil {
                // ENOENT/EBADF: curl already closed it, which drops it from the set anyway.
                _ = epoll_ctl(epoll, EPOLL_CTL_DEL, socket, nil)
            }
            return
        }
        var event = epoll_event()
        event.events = (readable ? EPOLLIN.rawValue : 0) | (writable ? EPOLLOUT.rawValue : 0)
        event.data.fd = socket
        guard watched[socket] != event.events else { return }
        // A closed-and-reused descriptor number may still be in `watched` but gone from epoll, or the other way round.
        let first = watched[socket] == nil ? EPOLL_CTL_ADD : EPOLL_CTL_MOD
        if epoll_ctl(epoll, first, socket, &event) != 0 {
            let second = first == EPOLL_CTL_ADD ? EPOLL_CTL_MOD : EPOLL_CTL_ADD
            guard epoll_ctl(epoll, second, socket, &event) == 0 else {
                watched[socket] = nil
                return
            }
        }
        watched[socket] = event.events
    }

    /// Waits up to `milliseconds` (0: just look) and calls `handle` for each ready socket. Returns whether the wake
    /// signal fired (it is left for the caller to drain).
    func wait(milliseconds: Int32, _ handle: (Event) -> Void) -> Bool {
        let count = epoll_wait(epoll, buffer, Int32(Self.capacity), milliseconds)
        guard count > 0 else { return false }
        var woken = false
        for index in 0..<Int(count) {
            let event = buffer[index]
            let fd = event.data.fd
            if fd == wakeDescriptor {
                woken = true
                continue
            }
            let bits = event.events
            handle(Event(
                descriptor: fd,
                readable: bits & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLRDHUP.rawValue) != 0,
                writable: bits & EPOLLOUT.rawValue != 0,
                failed: bits & EPOLLERR.rawValue != 0
            ))
        }
        return woken
    }

    private static func failure(_ call: String) -> HTTPClientError {
        HTTPClientError(kind: .transfer, call: call, message: String(cString: strerror(errno)))
    }
}
#else
#error("CurlHTTP waits on sockets with epoll and eventfd, which only Linux has: SocketPoller and WakeSignal need a port (e.g. kqueue) for this platform.")
#endif
