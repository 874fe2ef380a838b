import BridgeSupport
import StateStore
import Testing

@Suite("state.url")
struct StateStoreURLTests {
    @Test func memoryWhenEmpty() throws {
        #expect(try StateStoreURL(parsing: "") == .memory)
        #expect(try StateStoreURL(parsing: "  ") == .memory)
        #expect(!StateStoreURL.memory.isDurable)
    }

    @Test func sqlite() throws {
        #expect(try StateStoreURL(parsing: "sqlite:///var/lib/kakao-bridge/state.db") == .sqlite(path: "/var/lib/kakao-bridge/state.db"))
        #expect(throws: StateStoreURLError.self) { try StateStoreURL(parsing: "sqlite://relative/state.db") }
        #expect(throws: StateStoreURLError.self) { try StateStoreURL(parsing: "sqlite:///var/lib/") }
        #expect(throws: StateStoreURLError.self) { try StateStoreURL(parsing: "sqlite:///var/../etc/x.db") }
    }

    @Test func postgres() throws {
        let url = try StateStoreURL(parsing: "postgres://bridge@db.internal:6432/kakao?sslmode=verify-full")
        #expect(url == .postgres(.init(user: "bridge", host: "db.internal", port: 6432, database: "kakao", sslMode: .verifyFull)))
        #expect(url.description == "postgres://bridge@db.internal:6432/kakao?sslmode=verify-full")
        #expect(try StateStoreURL(parsing: "postgresql://u@h/d") == .postgres(.init(user: "u", host: "h", port: 5432, database: "d", sslMode: .require)))
        #expect(try StateStoreURL(parsing: "postgres://u@[::1]:5433/d?sslmode=disable") == .postgres(.init(user: "u", host: "::1", port: 5433, database: "d", sslMode: .disable)))
    }

    @Test("a password in the URL is refused without being repeated")
    func password() {
        for text in ["postgres://u:hunter2@h/d", "postgres://u@h/d?password=hunter2"] {
            let error = #expect(throws: StateStoreURLError.self) { try StateStoreURL(parsing: text) }
            #expect(error?.description.contains("password_file") == true)
            #expect(error?.description.contains("hunter2") == false)
        }
    }

    @Test("every problem is listed")
    func problems() {
        let error = #expect(throws: StateStoreURLError.self) { try StateStoreURL(parsing: "postgres://@:99999/?sslmode=maybe&x=1") }
        #expect(error?.problems.count == 6)
        #expect(throws: StateStoreURLError.self) { try StateStoreURL(parsing: "mysql://u@h/d") }
    }
}
