import BridgeJSON
import Hummingbird
import NIOCore
import Upstreams

/// A request body of at most 64 KiB (docs/api.md#conventions): the hook's, the revoke endpoint's and the unlink
/// webhook's.
enum RequestBody {
    static func collect(_ request: Request) async throws(Problem) -> ByteBuffer {
        // An announced length over the cap is refused at once, not after waiting for bytes that may never come.
        if let announced = request.headers[.contentLength].flatMap({ Int($0) }), announced > RequestLimits.maxBodyBytes {
            throw Problem.payloadTooLarge(limit: RequestLimits.maxBodyBytes)
        }
        var request = request
        do {
            return try await request.collectBody(upTo: RequestLimits.maxBodyBytes)
        } catch is NIOTooManyBytesError {
            throw Problem.payloadTooLarge(limit: RequestLimits.maxBodyBytes)
        } catch {
            throw Problem.invalidRequest("The body could not be read.")
        }
    }

    /// One JSON object, or 400 naming `what` it should have been.
    static func jsonObject(_ request: Request, what: String) async throws(Problem) -> JSONValue {
        let buffer = try await collect(request)
        guard let json = JSONValue.parse(buffer.readableBytesView), case .object = json else {
            throw Problem.invalidRequest("The body must be \(what).")
        }
        return json
    }
}
