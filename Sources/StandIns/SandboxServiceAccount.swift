import BridgeJSON
import FoundationEssentials
import OpenSSLCrypto

/// A throwaway Google service account for the sandbox and the tests, in Google's own JSON file format.
public struct SandboxServiceAccount: Sendable {
    public var projectID: String
    public var clientEmail: String
    public var clientID: String
    public var privateKeyID: String
    public var privateKey: RSAPrivateKey
    /// Google's token endpoint; `StandInSet` points it at its own token-endpoint stand-in.
    public var tokenURI = "https://oauth2.googleapis.com/token"

    public init(projectID: String, clientEmail: String, clientID: String, privateKeyID: String, privateKey: RSAPrivateKey) {
        self.projectID = projectID
        self.clientEmail = clientEmail
        self.clientID = clientID
        self.privateKeyID = privateKeyID
        self.privateKey = privateKey
    }

    public var publicKey: RSAPublicKey { privateKey.publicKey }

    public static func generate(projectID: String = "kakao-bridge-sandbox") throws -> SandboxServiceAccount {
        let suffix = hex(SecureRandom.bytes(count: 3)).prefix(5)
        let clientID = String(SecureRandom.bytes(count: 21).map { Character(String($0 % 10)) })
        return SandboxServiceAccount(
            projectID: projectID,
            clientEmail: "firebase-adminsdk-\(suffix)@\(projectID).iam.gserviceaccount.com",
            clientID: "1" + clientID.dropFirst(),
            privateKeyID: hex(SecureRandom.bytes(count: 20)),
            privateKey: try RSAPrivateKey.generate(bits: 2048)
        )
    }

    /// Writes the key file as the service wants it: readable by its owner only.
    public func writeKeyFile(to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(json().utf8), attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown)
        }
        // createFile keeps an existing file's mode.
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }

    /// The contents of the `.json` key file Google's console downloads.
    public func json() -> String {
        let encodedEmail = FormFields.escapePathSegment(clientEmail)
        let file: [String: JSONValue] = [
            "type": .string("service_account"),
            "project_id": .string(projectID),
            "private_key_id": .string(privateKeyID),
            "private_key": .string(privateKey.pkcs8PEM),
            "client_email": .string(clientEmail),
            "client_id": .string(clientID),
            "auth_uri": .string("https://accounts.google.com/o/oauth2/auth"),
            "token_uri": .string(tokenURI),
            "auth_provider_x509_cert_url": .string("https://www.googleapis.com/oauth2/v1/certs"),
            "client_x509_cert_url": .string("https://www.googleapis.com/robot/v1/metadata/x509/\(encodedEmail)"),
            "universe_domain": .string("googleapis.com"),
        ]
        return JSONValue.object(file).serializedString + "\n"
    }
}
