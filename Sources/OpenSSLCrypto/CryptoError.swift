/// A failed cryptographic operation: which OpenSSL call failed and why.
public struct CryptoError: Error, Sendable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case openSSL
        case keyTooSmall(bits: Int)
        case notRSA
        case invalidInput
    }

    private let code: Code
    /// The OpenSSL function (or check) that failed.
    public let call: String
    /// OpenSSL's reason text, or ours for checks made in Swift.
    public let reason: String

    private init(code: Code, call: String, reason: String) {
        self.code = code
        self.call = call
        self.reason = reason
    }

    /// A failure reported by OpenSSL; drains its thread-local error queue so later calls start clean.
    static func openSSL(call: String) -> CryptoError {
        CryptoError(code: .openSSL, call: call, reason: OpenSSLErrorQueue.drain())
    }

    static func keyTooSmall(call: String, bits: Int, minimum: Int) -> CryptoError {
        CryptoError(
            code: .keyTooSmall(bits: bits),
            call: call,
            reason: "RSA key too small: \(bits) bits, at least \(minimum) required"
        )
    }

    static func notRSA(call: String) -> CryptoError {
        CryptoError(code: .notRSA, call: call, reason: "key is not an RSA key")
    }

    static func invalidInput(call: String, reason: String) -> CryptoError {
        CryptoError(code: .invalidInput, call: call, reason: reason)
    }

    /// The key was RSA but below the minimum size.
    public var isKeyTooSmall: Bool {
        if case .keyTooSmall = code { return true }
        return false
    }

    /// The key was not an RSA key (EC, Ed25519, ...).
    public var isNotRSA: Bool { code == .notRSA }

    public var description: String { "\(call): \(reason)" }
}
