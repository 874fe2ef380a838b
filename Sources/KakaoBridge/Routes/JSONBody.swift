import BridgeJSON
import Hummingbird
import NIOCore

/// A request body that must be one JSON object of at most 64 KiB: the hook's and the revoke endpoint's.
enum JSONBody {
    static func read(_ request: Request, what: String) async throws(Problem) -> JSONValue {
        // An announced length over the cap is refused at once, not after waiting for bytes that may never come.
        if let announced = request.headers[.contentLength].flatMap({ Int($0) }), announced > RequestLimits.maxBodyBytes {
            throw Problem.payloadTooLarge(limit: RequestLimits.maxBodyBytes)
        }
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: RequestLimits.maxBodyBytes)
        } catch is NIOTooManyBytesError {
            throw Problem.payloadTooLarge(limit: RequestLimits.maxBodyBytes)
        } catch {
            throw Problem.invalidRequest("The body could not be read.")
        }
        guard let json = JSONValue.parse(buffer.readableBytesView), case .object = json else {
            throw Problem.invalidRequest("The body must be \(what).")
        }
        return json
    }
}
