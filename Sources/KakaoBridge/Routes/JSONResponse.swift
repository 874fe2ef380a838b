import Hummingbird

enum JSONResponse {
    static func ok(_ value: some Encodable) throws -> Response {
        let data = try JSONCoding.encode(value)
        return response(ByteBuffer(bytes: data))
    }

    /// The hot-path answers: written directly, without `JSONEncoder`.
    static func ok(json value: some JSONWritable) -> Response {
        response(ByteBuffer(bytes: value.jsonBytes))
    }

    private static func response(_ body: ByteBuffer) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: body)
        )
    }
}
