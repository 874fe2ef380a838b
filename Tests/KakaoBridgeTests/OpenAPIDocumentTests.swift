import BridgeJSON
import BridgeSupport
import BuildVersion
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
@testable import BridgeFeatures
@testable import KakaoBridge
import OpenAPIKit
import StandIns
import Testing
import Upstreams
import Yams
import UpstreamFakes
import EndToEndSupport
import BridgeTestSupport

/// docs/openapi.yaml against the service: it parses and validates with OpenAPIKit; its paths and operations are the
/// route table's (`Route`), no more and no fewer; and for every status it documents on an operation, a real answer of
/// the service (at the router's depth, `RouterWorld`, with the fakes failing where an upstream must) has that status and
/// matches the schema documented for it, media type included. An answer with a status the document does not list fails
/// too. The check prints one line per operation and status, the codes it saw and its verdict.
@Suite("docs/openapi.yaml")
struct OpenAPIDocumentTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func document() throws -> OpenAPI.Document {
        let text = try String(contentsOf: repository.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        return try YAMLDecoder().decode(OpenAPI.Document.self, from: text)
    }

    /// `GET /v1/token-exchange`, the way both sides are compared.
    struct Operation: Hashable, Comparable, CustomStringConvertible {
        let method: String
        let path: String
        var description: String { "\(method) \(path)" }
        static func < (lhs: Self, rhs: Self) -> Bool { (lhs.path, lhs.method) < (rhs.path, rhs.method) }
    }

    @Test func theDocumentIsValidOpenAPI31() throws {
        let document = try Self.document()
        #expect(document.openAPIVersion == .v3_1_0)
        try document.validate()
        #expect(document.info.version == BuildVersion.version, "info.version follows the release (CHANGELOG.md)")
    }

    @Test func itsOperationsAreTheRouteTable() throws {
        let document = try Self.document().locallyDereferenced()
        let routed = Set(Route.allCases.flatMap { route in route.methods.map { Operation(method: $0.rawValue, path: route.path) } })
        let documented = Set(document.paths.flatMap { path, item in
            item.endpoints.map { Operation(method: $0.method.rawValue, path: path.rawValue) }
        })
        #expect(routed.subtracting(documented).isEmpty, "routes the document lacks: \(routed.subtracting(documented).sorted())")
        #expect(documented.subtracting(routed).isEmpty, "operations no route serves: \(documented.subtracting(routed).sorted())")
        print("openapi: \(documented.count) operations, the route table's \(routed.count)")
    }

    @Test func everyDocumentedStatusIsARealAnswerThatMatchesItsSchema() async throws {
        let document = try Self.document().locallyDereferenced()
        var answers: [Answer] = []
        answers += try await Self.allOn()
        answers += try await Self.allOff()
        answers += try await Self.overTheirBudgets()
        answers += try await Self.notLoaded()
        answers += try await Self.hookRevocationCheck()
        answers += try await Self.kakaoKeysDown(.kakaoUnavailable("Kakao's JWKS endpoint answered HTTP 503."))
        answers += try await Self.kakaoKeysDown(.upstreamTimeout("Kakao's JWKS endpoint"))

        var seen: [Operation: [Int: [String]]] = [:]
        var failures: [String] = []
        for answer in answers {
            let operation = Operation(method: answer.method, path: answer.route.path)
            let status = answer.reply.status
            seen[operation, default: [:]][status, default: []].append(answer.label)
            if status != answer.expected {
                failures.append("\(operation) (\(answer.note)): answered \(status), the scenario expects \(answer.expected): \(answer.reply.text)")
            }
            failures += Self.mismatches(answer.reply, documentedAt: operation, in: document).map { "\(operation) \(status) (\(answer.note)): \($0)" }
        }

        var lines: [String] = []
        for route in document.routes.sorted(by: { $0.path.rawValue < $1.path.rawValue }) {
            for endpoint in route.pathItem.endpoints {
                let operation = Operation(method: endpoint.method.rawValue, path: route.path.rawValue)
                for (code, response) in endpoint.operation.responses {
                    guard case .status(let status) = code.value else {
                        failures.append("\(operation): only numbered statuses are checked, not \(code.rawValue)")
                        continue
                    }
                    let media = response.content.keys.map(\.rawValue).joined(separator: ", ")
                    let labels = seen[operation]?[status] ?? []
                    if labels.isEmpty { failures.append("\(operation) \(status): documented, but no scenario answers it") }
                    let verdict = labels.isEmpty ? "NOT SEEN" : "ok"
                    let shown = Array(Set(labels)).sorted().joined(separator: ",")
                    lines.append(
                        "\(operation.method.padding(toLength: 5, withPad: " ", startingAt: 0)) \(operation.path.padding(toLength: 26, withPad: " ", startingAt: 0)) "
                            + "\(status) \((media.isEmpty ? "(empty)" : media).padding(toLength: 26, withPad: " ", startingAt: 0)) \(shown.padding(toLength: 44, withPad: " ", startingAt: 0)) \(verdict)"
                    )
                }
            }
        }
        for (operation, statuses) in seen {
            for status in statuses.keys where Self.response(operation, status, in: document) == nil {
                failures.append("\(operation) answered \(status), which the document does not list")
            }
        }
        print("openapi: \(answers.count) real answers against \(lines.count) documented statuses")
        for line in lines { print("openapi: \(line)") }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    /// The check is no rubber stamp: answers the document does not allow are caught, each for its own reason.
    @Test func theCheckRefusesWhatTheDocumentDoesNotAllow() throws {
        let document = try Self.document().locallyDereferenced()
        func schema(_ path: String, _ method: String, _ status: Int) throws -> DereferencedJSONSchema {
            let response = try #require(Self.response(Operation(method: method, path: path), status, in: document))
            return try #require(response.content.first?.value.schema)
        }
        let problem: JSONValue = [
            "type": "urn:kakao-bridge:problem:user_disabled", "title": "User disabled", "status": 403,
            "detail": "The Firebase user is disabled.", "code": "user_disabled", "request_id": "5f0c",
        ]
        let exchange: JSONValue = ["uid": "kakao:1", "custom_token": "x", "custom_token_expires_in": 3600, "kakao": ["id": 1]]
        #expect(SchemaCheck.violations(of: problem, against: try schema("/v1/token-exchange", "GET", 403)).isEmpty)
        #expect(SchemaCheck.violations(of: exchange, against: try schema("/v1/token-exchange", "GET", 200)).isEmpty)

        let cases: [(String, JSONValue, DereferencedJSONSchema)] = [
            ("a code the status does not list", problem, try schema("/v1/token-exchange", "GET", 401)),
            ("a status other than the answer's", problem.with("status", 401), try schema("/v1/token-exchange", "GET", 403)),
            ("a problem member missing", problem.with("request_id", nil), try schema("/v1/token-exchange", "GET", 403)),
            ("an undocumented member", exchange.with("token", "x"), try schema("/v1/token-exchange", "GET", 200)),
            ("a wrong type", exchange.with("custom_token_expires_in", "3600"), try schema("/v1/token-exchange", "GET", 200)),
            ("a nested member missing", exchange.with("kakao", [:]), try schema("/v1/token-exchange", "GET", 200)),
            ("a backend answer without its body", exchange.with("login", ["status": 200]), try schema("/v1/token-exchange", "GET", 200)),
            ("an empty array", ["data": []], try schema("/v1/kakao/{access_token}", "GET", 200)),
            ("an err RFC 8935 does not name", ["err": "invalid_token", "description": "x"], try schema("/v1/kakao/events", "POST", 400)),
            ("a problem where RFC 8935's body belongs", problem, try schema("/v1/kakao/events", "POST", 400)),
        ]
        for (reason, value, schema) in cases {
            #expect(!SchemaCheck.violations(of: value, against: schema).isEmpty, "\(reason) passed")
        }
    }

    // MARK: Matching one answer

    static func response(_ operation: Operation, _ status: Int, in document: DereferencedDocument) -> DereferencedResponse? {
        guard let item = document.paths[OpenAPI.Path(rawValue: operation.path)],
            let endpoint = item.endpoints.first(where: { $0.method.rawValue == operation.method })
        else { return nil }
        return endpoint.operation.responses[.status(code: status)]
    }

    /// What in `reply` the documented response for its status does not allow; empty when it matches (or the status is not
    /// documented at all, which the caller reports).
    static func mismatches(_ reply: Reply, documentedAt operation: Operation, in document: DereferencedDocument) -> [String] {
        guard let response = response(operation, reply.status, in: document) else { return [] }
        let mediaType = reply.header("content-type")?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard let content = response.content.first(where: { $0.key.rawValue == mediaType })?.value else {
            if response.content.isEmpty {
                return reply.text.isEmpty ? [] : ["a body where the document says none: \(reply.text)"]
            }
            return ["Content-Type \(mediaType ?? "none") is not one of \(response.content.keys.map(\.rawValue))"]
        }
        guard let schema = content.schema else { return [] }
        let value: JSONValue
        if mediaType == "text/plain" {
            value = .string(reply.text)
        } else {
            guard let json = reply.json else { return ["the body is not JSON: \(reply.text)"] }
            value = json
        }
        return SchemaCheck.violations(of: value, against: schema)
    }

    // MARK: Real answers

    struct Answer: Sendable {
        let method: String
        let route: Route
        let expected: Int
        let note: String
        let reply: Reply

        /// What the printed line shows of it: the problem's code, the refusal's `err`, or its media type's kind.
        var label: String {
            if let code = reply.code { return code }
            if let err = reply.json?["err"]?.stringValue { return "err=\(err)" }
            return note
        }
    }

    /// The answers one world gave, in order.
    struct Answers {
        var all: [Answer] = []

        mutating func add(_ route: Route, _ method: HTTPRequest.Method, _ expected: Int, _ note: String, _ reply: Reply) {
            all.append(Answer(method: method.rawValue, route: route, expected: expected, note: note, reply: reply))
        }

        mutating func add(_ route: Route, _ expected: Int, _ note: String, _ reply: Reply) {
            add(route, .get, expected, note, reply)
        }
    }

    static let kakaoAK = ("Authorization", "KakaoAK " + TestWorld.adminKey)
    static let hookBearer = ("Authorization", "Bearer " + RouterWorld.hookSecret)
    static let form = ("Content-Type", "application/x-www-form-urlencoded")
    static let tooLarge = String(repeating: "a", count: RequestLimits.maxBodyBytes + 1)

    /// Every feature on, with a Firebase session and a backend: the successes, and each failure an upstream or a caller
    /// brings about.
    static func allOn() async throws -> [Answer] {
        var options = RouterWorld.Options()
        options.backend = true
        options.naver = true
        options.line = true
        options.configure = { config in
            config.kakao.adminKey = TestWorld.adminKey
            config.kakao.events.audiences = [SecurityEventRuleTests.audience]
            config.kakao.oidc.audiences = [OIDC.audience]
            config.linking.byVerifiedEmail = true
            config.delete.selfService = true
        }
        return try await RouterWorld.with(options) { world in
            var answers = Answers()
            let kakao = world.kakao
            world.admin.seed(FirebaseUserRecord(uid: "kakao:42", disabled: true))
            world.admin.seed(FirebaseUserRecord(
                uid: "email-user", email: "taken@example.com", emailVerified: true, customAttributes: #"{"kakao_id":99}"#
            ))
            let conflicting = { world.validToken(id: 43, email: "taken@example.com") }
            let failing = { (problem: Problem) in kakao.issue(.failure(problem)) }

            // GET /v1/token-exchange
            answers.add(.tokenExchange, 200, "all steps", try await world.exchange(world.validToken()))
            answers.add(.tokenExchange, 400, "token in the query", try await world.get("/v1/token-exchange?access_token=x"))
            answers.add(.tokenExchange, 401, "no Authorization", try await world.get("/v1/token-exchange"))
            answers.add(.tokenExchange, 401, "another app's token", try await world.exchange(world.otherAppToken()))
            answers.add(.tokenExchange, 403, "disabled user", try await world.exchange(world.validToken(id: 42)))
            answers.add(.tokenExchange, 409, "linked elsewhere", try await world.exchange(conflicting()))
            answers.add(.tokenExchange, 502, "Kakao down", try await world.exchange(failing(.kakaoUnavailable("Kakao answered HTTP 500."))))
            answers.add(.tokenExchange, 503, "Kakao quota", try await world.exchange(failing(.kakaoQuotaExceeded())))
            answers.add(.tokenExchange, 504, "Kakao slow", try await world.exchange(failing(.upstreamTimeout("Kakao"))))
            world.backend.answer(LoginResult(status: 403, body: ["meta": ["code": 403]]))
            answers.add(.tokenExchange, 502, "backend refuses", try await world.exchange(world.validToken()))
            world.backend.answer(LoginResult(status: 200, body: ["meta": ["code": 200]]))
            // Naver and LINE (docs/api.md#providers): their answers' shapes and their refusals. The fake backend takes Kakao's
            // body only, so these logins stop at step 5 here (`backend` is the end-to-end tests' business).
            let naverUser = ProviderRouterTests.naverUser
            let lineUser = ProviderRouterTests.lineUser
            let provider = { (token: String, name: String) in
                try await world.get("/v1/token-exchange?provider=" + name, headers: [("Authorization", "Bearer " + token)])
            }
            world.backend.answer(LoginResult(status: 200, body: ["meta": ["code": 200]]))
            let naverWorld = try await RouterWorld.with(ProviderRouterTests.both) { inner async throws in
                [
                    try await inner.get("/v1/token-exchange?provider=naver", headers: [("Authorization", "Bearer " + inner.naver.issue(naverUser))]),
                    try await inner.get("/v1/token-exchange?provider=line", headers: [("Authorization", "Bearer " + inner.line.issue(lineUser))]),
                ]
            }
            answers.add(.tokenExchange, 200, "a Naver login", naverWorld[0])
            answers.add(.tokenExchange, 200, "a LINE login", naverWorld[1])
            answers.add(.tokenExchange, 400, "an unknown provider", try await provider("t", "apple"))
            answers.add(.tokenExchange, 401, "Naver refuses", try await provider("unknown", "naver"))
            answers.add(.tokenExchange, 401, "another LINE channel", try await provider(world.line.provider.issue(.failure(.lineChannelMismatch())), "line"))
            answers.add(.tokenExchange, 502, "Naver's profile API off", try await provider(world.naver.provider.issue(.failure(.naverRejected("403"))), "naver"))
            answers.add(.tokenExchange, 503, "LINE quota", try await provider(world.line.provider.issue(.failure(.lineQuotaExceeded())), "line"))

            // GET /v1/kakao/{access_token}
            answers.add(.legacy, 200, "minted", try await world.get("/v1/kakao/" + world.validToken()))
            answers.add(.legacy, 400, "overlong token", try await world.get("/v1/kakao/" + String(repeating: "a", count: 2049)))
            answers.add(.legacy, 401, "another app's token", try await world.get("/v1/kakao/" + world.otherAppToken()))
            answers.add(.legacy, 403, "disabled user", try await world.get("/v1/kakao/" + world.validToken(id: 42)))
            answers.add(.legacy, 409, "linked elsewhere", try await world.get("/v1/kakao/" + conflicting()))
            answers.add(.legacy, 502, "Kakao down", try await world.get("/v1/kakao/" + failing(.kakaoUnavailable("Kakao answered HTTP 500."))))
            answers.add(.legacy, 503, "Kakao quota", try await world.get("/v1/kakao/" + failing(.kakaoQuotaExceeded())))
            answers.add(.legacy, 504, "Kakao slow", try await world.get("/v1/kakao/" + failing(.upstreamTimeout("Kakao"))))

            // GET /v1/kakao/nonce
            answers.add(.kakaoNonce, 200, "nonce", try await world.get("/v1/kakao/nonce"))

            // GET and POST /v1/kakao/unlink
            let fields = "app_id=\(RouterWorld.appID)&user_id=45&referrer_type=UNLINK_FROM_APPS"
            answers.add(.kakaoUnlink, 200, "recorded", try await world.get("/v1/kakao/unlink?" + fields, headers: [kakaoAK]))
            answers.add(.kakaoUnlink, 400, "user_id not a number", try await world.get("/v1/kakao/unlink?app_id=\(RouterWorld.appID)&user_id=x", headers: [kakaoAK]))
            answers.add(.kakaoUnlink, 401, "no admin key", try await world.get("/v1/kakao/unlink?" + fields))
            answers.add(.kakaoUnlink, .post, 200, "recorded", try await world.post("/v1/kakao/unlink", headers: [kakaoAK, form], body: fields))
            answers.add(.kakaoUnlink, .post, 400, "user_id not a number", try await world.post(
                "/v1/kakao/unlink", headers: [kakaoAK, form], body: "app_id=\(RouterWorld.appID)&user_id=-1"
            ))
            answers.add(.kakaoUnlink, .post, 401, "another app_id", try await world.post("/v1/kakao/unlink", headers: [kakaoAK, form], body: "app_id=7&user_id=45"))
            answers.add(.kakaoUnlink, .post, 413, "body over 64 KiB", try await world.post("/v1/kakao/unlink", headers: [kakaoAK, form], body: tooLarge))

            // POST /v1/naver/unlink
            let naverSigner = ProviderRouterTests.naverSigner
            answers.add(.naverUnlink, .post, 204, "recorded", try await world.post("/v1/naver/unlink", headers: [form], body: naverSigner.unlinkCallbackForm(id: "openapi-naver-id")))
            answers.add(.naverUnlink, .post, 401, "forged", try await world.post("/v1/naver/unlink", headers: [form], body: naverSigner.unlinkCallbackForm(id: "x", secret: "forged")))
            answers.add(.naverUnlink, .post, 413, "body over 64 KiB", try await world.post("/v1/naver/unlink", headers: [form], body: tooLarge))

            // POST /v1/kakao/events
            let secevent = ("Content-Type", "application/secevent+jwt")
            answers.add(.kakaoEvents, .post, 202, "accepted", try await world.post("/v1/kakao/events", headers: [secevent], body: try SecurityEventRuleTests.sign(world)))
            answers.add(.kakaoEvents, .post, 400, "not a SET", try await world.post("/v1/kakao/events", headers: [secevent], body: "a.b"))
            answers.add(.kakaoEvents, .post, 400, "wrong Content-Type", try await world.post("/v1/kakao/events", body: try SecurityEventRuleTests.sign(world)))
            answers.add(.kakaoEvents, .post, 400, "wrong audience", try await world.post(
                "/v1/kakao/events", headers: [secevent], body: try SecurityEventRuleTests.sign(world) { $0["aud"] = "someone-else" }
            ))
            answers.add(.kakaoEvents, .post, 413, "body over 64 KiB", try await world.post("/v1/kakao/events", headers: [secevent], body: tooLarge))

            // POST /v1/login-complete
            let uid = "kakao:1234567890"
            let hookBody = { (kakaoToken: String) in #"{"kakao_token": "\#(kakaoToken)", "token": "\#(try world.idToken(uid: uid))"}"# }
            answers.add(.loginComplete, .post, 200, "verified", try await world.post("/v1/login-complete", headers: [hookBearer], body: try hookBody(world.validToken())))
            answers.add(.loginComplete, .post, 400, "not JSON", try await world.post("/v1/login-complete", headers: [hookBearer], body: "nope"))
            answers.add(.loginComplete, .post, 401, "no secret", try await world.post("/v1/login-complete", body: try hookBody(world.validToken())))
            answers.add(.loginComplete, .post, 401, "another user's Kakao token", try await world.post(
                "/v1/login-complete", headers: [hookBearer], body: try hookBody(world.validToken(id: 7))
            ))
            answers.add(.loginComplete, .post, 413, "body over 64 KiB", try await world.post("/v1/login-complete", headers: [hookBearer], body: tooLarge))
            let naverUID = "naver:" + naverUser.id
            let naverHook = #"{"provider": "naver", "provider_token": "\#(world.naver.issue(naverUser))", "token": "\#(try world.idToken(uid: naverUID))"}"#
            answers.add(.loginComplete, .post, 200, "a Naver user", try await world.post("/v1/login-complete", headers: [hookBearer], body: naverHook))
            let lineUID = "line:" + lineUser.id
            let lineHook = #"{"provider": "line", "provider_token": "\#(world.line.issue(lineUser))", "token": "\#(try world.idToken(uid: lineUID))"}"#
            answers.add(.loginComplete, .post, 200, "a LINE user", try await world.post("/v1/login-complete", headers: [hookBearer], body: lineHook))
            answers.add(.loginComplete, .post, 502, "Kakao down", try await world.post(
                "/v1/login-complete", headers: [hookBearer], body: try hookBody(failing(.kakaoUnavailable("Kakao answered HTTP 500.")))
            ))
            answers.add(.loginComplete, .post, 503, "Kakao quota", try await world.post(
                "/v1/login-complete", headers: [hookBearer], body: try hookBody(failing(.kakaoQuotaExceeded()))
            ))
            answers.add(.loginComplete, .post, 504, "Kakao slow", try await world.post(
                "/v1/login-complete", headers: [hookBearer], body: try hookBody(failing(.upstreamTimeout("Kakao")))
            ))

            // POST /v1/users/revoke
            world.admin.seed(FirebaseUserRecord(uid: "revoke-me"))
            answers.add(.revoke, .post, 200, "revoked", try await world.post("/v1/users/revoke", headers: [hookBearer], body: #"{"uid": "revoke-me"}"#))
            answers.add(.revoke, .post, 400, "no uid", try await world.post("/v1/users/revoke", headers: [hookBearer], body: #"{"user": "revoke-me"}"#))
            answers.add(.revoke, .post, 401, "no secret", try await world.post("/v1/users/revoke", body: #"{"uid": "revoke-me"}"#))
            answers.add(.revoke, .post, 404, "no such user", try await world.post("/v1/users/revoke", headers: [hookBearer], body: #"{"uid": "nobody"}"#))
            answers.add(.revoke, .post, 413, "body over 64 KiB", try await world.post("/v1/users/revoke", headers: [hookBearer], body: tooLarge))
            world.admin.fail(with: .firebaseAdminUnavailable("The Admin API answered HTTP 503."))
            answers.add(.revoke, .post, 502, "Admin API down", try await world.post("/v1/users/revoke", headers: [hookBearer], body: #"{"uid": "revoke-me"}"#))
            world.admin.fail(with: .upstreamTimeout("The Admin API"))
            answers.add(.revoke, .post, 504, "Admin API slow", try await world.post("/v1/users/revoke", headers: [hookBearer], body: #"{"uid": "revoke-me"}"#))
            world.admin.fail(with: nil)

            // POST /v1/users/delete
            let deleteUser = "/v1/users/delete"
            for uid in ["kakao:55", "kakao:56", "kakao:57", "kakao:\(FakeProviderUnlink.failingKakaoID)"] {
                world.admin.seed(FirebaseUserRecord(uid: uid))
            }
            answers.add(.deleteUser, .post, 200, "deleted", try await world.post(deleteUser, headers: [hookBearer], body: #"{"uid": "kakao:55"}"#))
            answers.add(.deleteUser, .post, 200, "asked again", try await world.post(deleteUser, headers: [hookBearer], body: #"{"uid": "kakao:55"}"#))
            answers.add(.deleteUser, .post, 202, "Kakao's unlink down", try await world.post(
                deleteUser, headers: [hookBearer], body: #"{"uid": "kakao:\#(FakeProviderUnlink.failingKakaoID)"}"#
            ))
            answers.add(.deleteUser, .post, 400, "no uid", try await world.post(deleteUser, headers: [hookBearer], body: #"{"user": "kakao:56"}"#))
            answers.add(.deleteUser, .post, 401, "no secret", try await world.post(deleteUser, body: #"{"uid": "kakao:56"}"#))
            answers.add(.deleteUser, .post, 401, "another person's token", try await world.post(
                deleteUser, headers: [hookBearer], body: #"{"uid": "kakao:56", "provider_token": "\#(world.validToken(id: 57))"}"#
            ))
            answers.add(.deleteUser, .post, 404, "no such user", try await world.post(deleteUser, headers: [hookBearer], body: #"{"uid": "kakao:1"}"#))
            answers.add(.deleteUser, .post, 413, "body over 64 KiB", try await world.post(deleteUser, headers: [hookBearer], body: tooLarge))
            world.admin.fail(with: .firebaseAdminUnavailable("The Admin API answered HTTP 503."))
            answers.add(.deleteUser, .post, 502, "Admin API down", try await world.post(deleteUser, headers: [hookBearer], body: #"{"uid": "kakao:56"}"#))
            world.admin.fail(with: .upstreamTimeout("The Admin API"))
            answers.add(.deleteUser, .post, 504, "Admin API slow", try await world.post(deleteUser, headers: [hookBearer], body: #"{"uid": "kakao:56"}"#))
            world.admin.fail(with: nil)

            // POST /v1/me/delete
            let deleteMe = "/v1/me/delete"
            answers.add(.deleteMe, .post, 200, "deleted", try await world.post(
                deleteMe, headers: [("Authorization", "Bearer " + (try world.idToken(uid: "kakao:57")))], body: ""
            ))
            answers.add(.deleteMe, .post, 202, "a pending deletion, asked again", try await world.post(
                deleteMe, headers: [("Authorization", "Bearer " + (try world.idToken(uid: "kakao:\(FakeProviderUnlink.failingKakaoID)")))], body: ""
            ))
            answers.add(.deleteMe, .post, 400, "not JSON", try await world.post(
                deleteMe, headers: [("Authorization", "Bearer " + (try world.idToken(uid: "kakao:56")))], body: "[1]"
            ))
            answers.add(.deleteMe, .post, 401, "no ID token", try await world.post(deleteMe, body: ""))
            answers.add(.deleteMe, .post, 401, "an old sign-in", try await world.post(
                deleteMe, headers: [("Authorization", "Bearer " + (try world.idToken(uid: "kakao:56") { $0["auth_time"] = UnixClock.system.now() - 3600 }))],
                body: ""
            ))

            // Probes and metrics
            answers.add(.healthz, 200, "alive", try await world.get("/healthz"))
            answers.add(.metrics, 200, "exposition", try await world.get("/metrics"))
            return answers.all
        }
    }

    /// Nothing optional on: the routes a setting switches on are 404, and an instance with no hook is ready at once.
    static func allOff() async throws -> [Answer] {
        var options = RouterWorld.Options()
        options.configure = { $0.legacy.enabled = false }
        return try await RouterWorld.with(options) { world in
            var answers = Answers()
            answers.add(.legacy, 404, "legacy.enabled false", try await world.get("/v1/kakao/" + world.validToken()))
            answers.add(.kakaoNonce, 404, "OpenID Connect off", try await world.get("/v1/kakao/nonce"))
            answers.add(.kakaoUnlink, 404, "no admin key", try await world.get("/v1/kakao/unlink?app_id=1&user_id=1"))
            answers.add(.kakaoUnlink, .post, 404, "no admin key", try await world.post("/v1/kakao/unlink", headers: [form], body: "app_id=1&user_id=1"))
            answers.add(.kakaoEvents, .post, 404, "no audiences", try await world.post("/v1/kakao/events", headers: [("Content-Type", "application/secevent+jwt")], body: "a.b.c"))
            answers.add(.naverUnlink, .post, 404, "no Naver client secret", try await world.post("/v1/naver/unlink", headers: [form], body: "clientId=x"))
            answers.add(.loginComplete, .post, 404, "no hook secret", try await world.post("/v1/login-complete", headers: [hookBearer], body: "{}"))
            answers.add(.revoke, .post, 404, "no hook secret", try await world.post("/v1/users/revoke", headers: [hookBearer], body: "{}"))
            answers.add(.deleteUser, .post, 404, "no hook secret", try await world.post("/v1/users/delete", headers: [hookBearer], body: "{}"))
            answers.add(.deleteMe, .post, 404, "delete.self_service off", try await world.post("/v1/me/delete", headers: [hookBearer], body: ""))
            answers.add(.readyz, 200, "ready", try await world.get("/readyz"))
            return answers.all
        }
    }

    /// One request a minute per client and one hook call a minute: each limited route's 429.
    static func overTheirBudgets() async throws -> [Answer] {
        var options = RouterWorld.Options()
        options.hook = true
        options.naver = true
        options.configure = { config in
            config.kakao.adminKey = TestWorld.adminKey
            config.kakao.oidc.audiences = [OIDC.audience]
            config.rateLimit.perClientPerMinute = 1
            config.rateLimit.hookPerMinute = 1
        }
        return try await RouterWorld.with(options) { world in
            var answers = Answers()
            answers.add(.tokenExchange, 401, "spends the client's one token", try await world.get("/v1/token-exchange"))
            answers.add(.tokenExchange, 429, "over budget", try await world.get("/v1/token-exchange"))
            answers.add(.kakaoNonce, 429, "over budget", try await world.get("/v1/kakao/nonce"))
            answers.add(.legacy, 429, "over budget", try await world.get("/v1/kakao/" + world.validToken()))
            answers.add(.kakaoUnlink, 429, "refusal over budget", try await world.get("/v1/kakao/unlink?app_id=1&user_id=1"))
            answers.add(.kakaoUnlink, .post, 429, "refusal over budget", try await world.post("/v1/kakao/unlink", headers: [form], body: "app_id=1&user_id=1"))
            answers.add(.naverUnlink, .post, 429, "refusal over budget", try await world.post("/v1/naver/unlink", headers: [form], body: "clientId=x"))
            answers.add(.loginComplete, .post, 400, "spends the hook's one call", try await world.post("/v1/login-complete", headers: [hookBearer], body: "{}"))
            answers.add(.loginComplete, .post, 429, "over the hook's budget", try await world.post("/v1/login-complete", headers: [hookBearer], body: "{}"))
            answers.add(.revoke, .post, 429, "over the hook's budget", try await world.post("/v1/users/revoke", headers: [hookBearer], body: "{}"))
            answers.add(.deleteUser, .post, 429, "over the hook's budget", try await world.post("/v1/users/delete", headers: [hookBearer], body: "{}"))
            answers.add(.deleteMe, .post, 429, "over budget", try await world.post("/v1/me/delete", body: ""))
            return answers.all
        }
    }

    /// No configuration or key loaded yet: every route that needs them, and `/readyz`, say `not_ready`.
    static func notLoaded() async throws -> [Answer] {
        BridgeMetrics.bootstrap()
        let quiet = Logger(label: "not-loaded") { _ in SwiftLogNoOpLogHandler() }
        let app = Application(router: buildRouter(holder: FeatureHolder(nil)), logger: quiet)
        return try await app.test(.router) { client in
            var answers = Answers()
            func call(_ route: Route, _ method: HTTPRequest.Method, _ path: String) async throws {
                let response = try await client.executeRequest(
                    uri: path, method: method, headers: [:], body: method == .post ? ByteBuffer(string: "{}") : nil
                )
                let reply = Reply(
                    status: response.status.code, headers: response.headers.map { (name: $0.name.canonicalName, value: $0.value) },
                    body: Array(buffer: response.body)
                )
                answers.add(route, method, 503, "not loaded", reply)
            }
            try await call(.tokenExchange, .get, "/v1/token-exchange")
            try await call(.legacy, .get, "/v1/kakao/some-token")
            try await call(.kakaoNonce, .get, "/v1/kakao/nonce")
            try await call(.kakaoUnlink, .get, "/v1/kakao/unlink")
            try await call(.kakaoUnlink, .post, "/v1/kakao/unlink")
            try await call(.kakaoEvents, .post, "/v1/kakao/events")
            try await call(.naverUnlink, .post, "/v1/naver/unlink")
            try await call(.loginComplete, .post, "/v1/login-complete")
            try await call(.revoke, .post, "/v1/users/revoke")
            try await call(.deleteUser, .post, "/v1/users/delete")
            try await call(.deleteMe, .post, "/v1/me/delete")
            try await call(.readyz, .get, "/readyz")
            return answers.all
        }
    }

    /// `hook.check_revoked`: a disabled user's ID token is refused before Kakao is asked.
    static func hookRevocationCheck() async throws -> [Answer] {
        var options = RouterWorld.Options()
        options.hook = true
        options.configure = { $0.hook.checkRevoked = true }
        return try await RouterWorld.with(options) { world in
            var answers = Answers()
            world.admin.seed(FirebaseUserRecord(uid: "kakao:42", disabled: true))
            let body = #"{"kakao_token": "\#(world.validToken(id: 42))", "token": "\#(try world.idToken(uid: "kakao:42"))"}"#
            answers.add(.loginComplete, .post, 403, "disabled user", try await world.post("/v1/login-complete", headers: [hookBearer], body: body))
            return answers.all
        }
    }

    /// Kakao's keys cannot be had and none are cached: a SET is answered with `problem`'s status, so Kakao sends it again.
    static func kakaoKeysDown(_ problem: Problem) async throws -> [Answer] {
        try await RouterWorld.with(SecurityEventRuleTests.options()) { world in
            var answers = Answers()
            world.kakaoKeys.fail(with: problem)
            let reply = try await world.post(
                "/v1/kakao/events", headers: [("Content-Type", "application/secevent+jwt")], body: try SecurityEventRuleTests.sign(world)
            )
            answers.add(.kakaoEvents, .post, problem.status.code, "keys: \(problem.code.rawValue)", reply)
            return answers.all
        }
    }
}

extension JSONValue {
    /// The object with `key` set to `value` (`nil` removes it).
    func with(_ key: String, _ value: JSONValue?) -> JSONValue {
        var members = objectValue ?? [:]
        members[key] = value
        return .object(members)
    }
}
