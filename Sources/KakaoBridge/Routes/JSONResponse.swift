import BridgeJSON
import Hummingbird

/// Every successful answer: JSON from `JSONWriter`, never cached by a proxy (it may carry tokens).
enum JSONResponse {
    static func ok(json value: some JSONWritable) -> Response {
        let body = ByteBuffer(bytes: value.jsonBytes)
        return Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: body)
        )
    }
}
