import COpenSSL

/// The one place OpenSSL results are judged, so every failure names the call that produced it.
enum OpenSSLCall {
    /// For calls that return 1 on success and 0 or a negative value on failure.
    @inline(__always)
    static func check(_ name: String, _ result: Int32) throws(CryptoError) {
        guard result > 0 else { throw CryptoError.openSSL(call: name) }
    }

    /// For calls that return a pointer, NULL on failure.
    @inline(__always)
    static func check<T>(_ name: String, _ result: T?) throws(CryptoError) -> T {
        guard let result else { throw CryptoError.openSSL(call: name) }
        return result
    }

    /// For calls whose failure means the process cannot go on safely (allocation failure, a broken RNG);
    /// the public API stays non-throwing where no caller could recover anyway.
    static func expect(_ name: String, _ result: Int32) {
        do { try check(name, result) } catch { fatalError("OpenSSL failed: \(error)") }
    }

    static func expect<T>(_ name: String, _ result: T?) -> T {
        do { return try check(name, result) } catch { fatalError("OpenSSL failed: \(error)") }
    }
}

enum OpenSSLErrorQueue {
    /// Reads every queued error (earliest first: the root cause) and leaves the queue empty.
    static func drain() -> String {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            if reasons.count < 4 { reasons.append(text) }
        }
        ERR_clear_error()
        return reasons.isEmpty ? "unknown OpenSSL error" : reasons.joined(separator: "; ")
    }
}
