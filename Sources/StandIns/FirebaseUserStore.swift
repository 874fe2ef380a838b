import BridgeJSON
import FoundationEssentials
import Synchronization

/// The Firebase project's users, shared by the Admin API stand-in and the Identity Toolkit stand-in as Google shares
/// them: a user the Admin API creates is the one a custom-token sign-in finds, and a sign-in creates a missing one.
public final class FirebaseUserStore: Sendable {
    public struct User: Sendable, Equatable {
        public var uid: String
        public var displayName: String?
        public var photoURL: String?
        public var email: String?
        public var emailVerified = false
        public var disabled = false
        /// Seconds; sessions that began earlier are revoked.
        public var validSince: Int64
        /// A JSON object as a string.
        public var customAttributes: String?
        public var createdAtMillis: Int64
        public var lastLoginAtMillis: Int64?

        /// The record as `accounts:lookup` answers it.
        var json: JSONValue {
            var members: [String: JSONValue] = [
                "localId": .string(uid),
                "emailVerified": .bool(emailVerified),
                "disabled": .bool(disabled),
                "validSince": .string(String(validSince)),
                "createdAt": .string(String(createdAtMillis)),
                "providerUserInfo": .array([]),
            ]
            if let displayName { members["displayName"] = .string(displayName) }
            if let photoURL { members["photoUrl"] = .string(photoURL) }
            if let email { members["email"] = .string(email) }
            if let customAttributes { members["customAttributes"] = .string(customAttributes) }
            if let lastLoginAtMillis { members["lastLoginAt"] = .string(String(lastLoginAtMillis)) }
            return .object(members)
        }
    }

    public enum Conflict: Error, Sendable, Equatable {
        case duplicateLocalID
        case emailExists
        case userNotFound
    }

    private let users = Mutex<[String: User]>([:])
    private let now: @Sendable () -> Int64

    public init(now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) {
        self.now = now
    }

    public func user(_ uid: String) -> User? { users.withLock { $0[uid] } }
    public func user(email: String) -> User? {
        users.withLock { users in users.values.first { $0.email?.lowercased() == email.lowercased() } }
    }
    public var count: Int { users.withLock { $0.count } }
    public var all: [User] { users.withLock { Array($0.values) } }

    /// Adds a user as the Admin API's create does; `EMAIL_EXISTS` and `DUPLICATE_LOCAL_ID` as Google answers them.
    @discardableResult
    public func create(_ user: User) throws(Conflict) -> User {
        try users.withLock { (users: inout [String: User]) throws(Conflict) -> User in
            if users[user.uid] != nil { throw Conflict.duplicateLocalID }
            if let email = user.email, users.values.contains(where: { $0.email?.lowercased() == email.lowercased() }) {
                throw Conflict.emailExists
            }
            users[user.uid] = user
            return user
        }
    }

    /// A fresh record for `uid` stamped now (what tests seed and what create fills in).
    public func newUser(_ uid: String) -> User {
        let seconds = now()
        return User(uid: uid, validSince: seconds, createdAtMillis: seconds * 1000)
    }

    /// Changes a user in place; `EMAIL_EXISTS` when the change gives them another user's email.
    @discardableResult
    public func update(_ uid: String, _ change: (inout User) -> Void) throws(Conflict) -> User {
        try users.withLock { (users: inout [String: User]) throws(Conflict) -> User in
            guard var user = users[uid] else { throw Conflict.userNotFound }
            change(&user)
            if let email = user.email,
               users.values.contains(where: { $0.uid != uid && $0.email?.lowercased() == email.lowercased() }) {
                throw Conflict.emailExists
            }
            users[uid] = user
            return user
        }
    }

    public func delete(_ uid: String) throws(Conflict) {
        try users.withLock { (users: inout [String: User]) throws(Conflict) in
            guard users.removeValue(forKey: uid) != nil else { throw Conflict.userNotFound }
        }
    }

    /// What a custom-token sign-in does: the user, created when missing (`isNew`), stamped with the login time.
    func signIn(_ uid: String) -> (user: User, isNew: Bool) {
        let seconds = now()
        return users.withLock { users in
            var user = users[uid] ?? User(uid: uid, validSince: seconds, createdAtMillis: seconds * 1000)
            let isNew = users[uid] == nil
            if !user.disabled { user.lastLoginAtMillis = seconds * 1000 }
            users[uid] = user
            return (user, isNew)
        }
    }

    /// Test and sandbox conveniences: what an operator does in the Firebase console.
    public func disable(_ uid: String, _ disabled: Bool = true) {
        _ = try? update(uid) { $0.disabled = disabled }
    }

    public func revokeSessions(_ uid: String, validSince: Int64? = nil) {
        let seconds = validSince ?? now()
        _ = try? update(uid) { $0.validSince = seconds }
    }
}
