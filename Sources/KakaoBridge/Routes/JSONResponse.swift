import BridgeFeatures
import BridgeJSON
import BridgeSupport
import Hummingbird
import Upstreams

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

/// The answers of docs/api.md, written with `JSONWriter`; `JSONWriterTests` holds each next to what Foundation writes.

extension FirebaseSession: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.openObject()
        writer.key("id_token")
        writer.string(idToken)
        writer.key("refresh_token")
        writer.string(refreshToken)
        writer.key("expires_in")
        writer.int(expiresIn)
        writer.key("is_new_user")
        writer.bool(isNewUser)
        writer.closeObject()
    }
}

extension TokenExchangeResponse: JSONWritable {
    package func write(to writer: inout JSONWriter) {
        writer.openObject()
        writer.key("uid")
        writer.string(uid)
        // Kakao's answer is what it always was; the others say which provider they are (docs/api.md#providers).
        if User.provider != .kakao {
            writer.key("provider")
            writer.string(User.provider.rawValue)
        }
        writer.key("custom_token")
        writer.string(customToken)
        writer.key("custom_token_expires_in")
        writer.int(customTokenExpiresIn)
        writer.key(User.provider.rawValue)
        profile.write(to: &writer)
        writer.member("firebase", firebase)
        writer.member("login", login)
        writer.closeObject()
    }
}

extension LegacyController.Reply: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.openObject()
        writer.key("data")
        writer.openArray()
        for item in data {
            writer.openObject()
            writer.key("token")
            writer.string(item.token)
            writer.key("kakao_token")
            writer.string(item.kakao_token)
            writer.closeObject()
        }
        writer.closeArray()
        writer.closeObject()
    }
}

extension LoginHook.Verified: JSONWritable {
    package func write(to writer: inout JSONWriter) {
        writer.openObject()
        writer.key("uid")
        writer.string(uid)
        let provider = type(of: profile).provider
        if provider != .kakao {
            writer.key("provider")
            writer.string(provider.rawValue)
        }
        writer.key(provider.rawValue)
        profile.write(to: &writer)
        writer.key("claims")
        writer.value(claims)
        writer.closeObject()
    }
}
