import BridgeSupport
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Whether `serve` can listen where the configuration says, asked before anything starts (docs/operations.md#exit-codes):
/// a port already taken otherwise ends the server's service group with NIO's raw error, after the group's own error
/// lines, none of which says which setting to change. Each listener is bound the way the server binds it (NIO, with
/// `SO_REUSEADDR`) and closed at once.
public enum ListenCheck {
    /// One line naming the address, the port, its key and why it cannot be used; nil when every listener can bind.
    public static func refusal(_ config: BridgeConfig) async -> String? {
        var listeners = [(host: config.server.host, port: config.server.port, key: "server.port")]
        if let admin = config.server.adminPort { listeners.append((config.server.adminHost, admin, "server.admin_port")) }
        for listener in listeners where listener.port != 0 {
            if let reason = await refusal(host: listener.host, port: listener.port) {
                return "cannot listen on \(Self.address(listener.host, listener.port)) (\(listener.key)): \(reason)"
            }
        }
        return nil
    }

    /// Why `host:port` cannot be bound, or nil.
    static func refusal(host: String, port: Int) async -> String? {
        do {
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .bind(host: host, port: port).get()
            try? await channel.close().get()
            return nil
        } catch let error as IOError {
            return reason(errno: error.errnoCode)
        } catch {
            return "\(error)"
        }
    }

    static func reason(errno code: Int32) -> String {
        switch code {
        case EADDRINUSE: "the address is already in use (another process listens there: stop it, or choose another port)"
        case EACCES: "permission denied (ports below 1024 need CAP_NET_BIND_SERVICE)"
        case EADDRNOTAVAIL: "no interface of this machine has that address"
        default: String(cString: strerror(code))
        }
    }

    /// `[::1]:8080` for an IPv6 address, `host:8080` otherwise.
    static func address(_ host: String, _ port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
