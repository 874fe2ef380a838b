import Hummingbird

enum JSONResponse {
    static func ok(_ value: some Encodable) throws -> Response {
        let data = try JSONCoding.encode(value)
        return Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}
