/// What the app needs of the Firebase SDK: a sign-in with the bridge's custom token. In the app,
/// `Auth.auth().signIn(withCustomToken:)` does it (docs/clients.md); the SDK then keeps the session fresh itself.
public protocol FirebaseSigningIn: Sendable {
    /// Returns the signed-in user's uid.
    func signIn(withCustomToken customToken: String) async throws -> String
}
