import BridgeJSON
import BridgeSupport
import FoundationEssentials
import OpenSSLCrypto

/// The Google service account whose key signs custom tokens and the Admin API's access-token assertions: the fields of a
/// standard service-account JSON file.
public struct ServiceAccount: Sendable {
    /// What Google's console writes into every key file; Google's auth libraries fall back to it too.
    public static let defaultTokenURI = "https://oauth2.googleapis.com/token"

    public let clientEmail: String
    public let privateKeyID: String
    public let projectID: String
    public let privateKey: RSAPrivateKey
    /// Where the RFC 7523 JWT-bearer grant is sent, and the assertion's `aud` (docs/configuration.md#the-service-account).
    public let tokenURI: String

    public init(
        clientEmail: String, privateKeyID: String, projectID: String, privateKey: RSAPrivateKey,
        tokenURI: String = ServiceAccount.defaultTokenURI
    ) {
        self.clientEmail = clientEmail
        self.privateKeyID = privateKeyID
        self.projectID = projectID
        self.privateKey = privateKey
        self.tokenURI = tokenURI
    }

    private struct File: JSONDecodable {
        package var client_email: String?
        package var private_key: String?
        package var private_key_id: String?
        package var project_id: String?
        package var token_uri: String?

        package init(json: JSONValue) throws(JSONMismatch) {
            token_uri = try json.optional("token_uri", \.stringValue)
            client_email = try json.optional("client_email", \.stringValue)
            private_key = try json.optional("private_key", \.stringValue)
            private_key_id = try json.optional("private_key_id", \.stringValue)
            project_id = try json.optional("project_id", \.stringValue)
        }
    }

    /// Reads the file and reports every missing field at once; the key's text never enters an error message.
    public static func load(path: String) throws(ServiceAccountError) -> ServiceAccount {
        try refuseWorldAccess(path)
        guard let bytes = FileBytes.read(path: path) else {
            throw ServiceAccountError("cannot read \(path)")
        }
        return try parse(Data(bytes), source: path)
    }

    /// The key signs logins for every user: a file other users of the machine can read is refused (`PrivateFile`, the
    /// rule of every secret file).
    package static func refuseWorldAccess(_ path: String) throws(ServiceAccountError) {
        if let refusal = PrivateFile.refusal(path) { throw ServiceAccountError(refusal) }
    }

    public static func parse(_ data: Data, source: String) throws(ServiceAccountError) -> ServiceAccount {
        let file: File
        do {
            file = try File(jsonBytes: data)
        } catch {
            throw ServiceAccountError("\(source) is not a service-account JSON file")
        }
        var missing: [String] = []
        if (file.client_email ?? "").isEmpty { missing.append("client_email") }
        if (file.private_key ?? "").isEmpty { missing.append("private_key") }
        if (file.private_key_id ?? "").isEmpty { missing.append("private_key_id") }
        if (file.project_id ?? "").isEmpty { missing.append("project_id") }
        guard missing.isEmpty, let email = file.client_email, let pem = file.private_key,
              let keyID = file.private_key_id, let project = file.project_id else {
            throw ServiceAccountError("\(source) lacks \(missing.joined(separator: ", "))")
        }
        let key: RSAPrivateKey
        do {
            key = try RSAPrivateKey(pem: pem)
        } catch {
            throw ServiceAccountError("\(source): private_key is unusable: \(error)")
        }
        let tokenURI = file.token_uri.flatMap { $0.isEmpty ? nil : $0 } ?? defaultTokenURI
        guard ConfigValidation.isHTTPURL(tokenURI) else {
            throw ServiceAccountError("\(source): token_uri is not an http:// or https:// URL")
        }
        return ServiceAccount(clientEmail: email, privateKeyID: keyID, projectID: project, privateKey: key, tokenURI: tokenURI)
    }
}

public struct ServiceAccountError: Error, Sendable, CustomStringConvertible {
    public let description: String
    package init(_ description: String) { self.description = description }
}
