import Foundation
import Testing

/// Second hardening round, the shipped deploy files: what nginx may retry and limit, and whom Kubernetes trusts.
@Suite struct HardeningDeployTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The body of `location <match> { … }` in the nginx site (one level of braces is enough for it).
    static func location(_ match: String, in site: String) -> String? {
        guard let start = site.range(of: "location \(match) {") else { return nil }
        var depth = 0
        var body = ""
        for character in site[start.upperBound...] {
            if character == "{" { depth += 1 }
            if character == "}" {
                if depth == 0 { return body }
                depth -= 1
            }
            body.append(character)
        }
        return nil
    }

    @Test func nginxNeverRetriesWhatMayNotRunTwiceAndLimitsOnlyTheAppsRoutes() throws {
        let site = try String(contentsOf: Self.root.appendingPathComponent("deploy/nginx/kakao-bridge.conf"), encoding: .utf8)
        let exchange = try #require(Self.location("^~ /v1/token-exchange", in: site))
        let hook = try #require(Self.location("^~ /v1/login-complete", in: site))
        let legacy = try #require(Self.location("~* ^/v1/kakao/", in: site))
        let rest = try #require(Self.location("/", in: site))
        #expect(exchange.contains("proxy_next_upstream off;"))
        #expect(hook.contains("proxy_next_upstream off;"))
        #expect(!site.contains("non_idempotent"))
        for app in [exchange, legacy, rest] { #expect(app.contains("limit_req zone=kakao_bridge_clients")) }
        #expect(!hook.contains("limit_req"))
        #expect(site.contains("limit_req_zone $binary_remote_addr zone=kakao_bridge_clients"))
        #expect(site.contains("limit_req_status 429;"))
        // Kakao's webhook is exposed (Kakao calls it), not rate limited, and documents the allow-list of Kakao's servers;
        // the revoke endpoint is internal like the hook.
        let unlink = try #require(Self.location("= /v1/kakao/unlink", in: site))
        #expect(!unlink.contains("limit_req") && !unlink.contains("kakao_bridge_internal"))
        #expect(site.contains("v1/system/ips?rule_type=inbound"))
        let revoke = try #require(Self.location("^~ /v1/users/", in: site))
        #expect(revoke.contains("if ($kakao_bridge_internal = 0) { return 403; }"))
        #expect(!revoke.contains("limit_req"))
    }

    /// Security issue 27: a core dump would hold the private key, the secrets and tokens in flight.
    @Test func bothSystemdUnitsForbidCoreDumps() throws {
        for unit in ["kakao-bridge.service", "kakao-bridge@.service"] {
            let text = try String(contentsOf: Self.root.appendingPathComponent("deploy/systemd/" + unit), encoding: .utf8)
            #expect(text.split(separator: "\n").contains("LimitCORE=0"), "\(unit) allows core dumps")
        }
    }

    /// Security issue 27: `location = /metrics` let `/metrics/` fall through to `location /`. No guarded path is an exact
    /// match any more (scripts/nginx-test.sh checks the respellings against a real nginx).
    @Test func nginxGuardsItsInternalPathsByPrefix() throws {
        let site = try String(contentsOf: Self.root.appendingPathComponent("deploy/nginx/kakao-bridge.conf"), encoding: .utf8)
        for path in ["/metrics", "/readyz", "/v1/login-complete", "/v1/users/"] {
            let guarded = try #require(Self.location("^~ \(path)", in: site), "no prefix location for \(path)")
            #expect(guarded.contains("if ($kakao_bridge_internal = 0) { return 403; }"))
            let exact = site.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("location = \(path)") }
            #expect(exact.isEmpty, "\(exact)")
        }
    }

    /// The value after `key:` on the first line that has it, without surrounding blanks.
    static func value(of key: String, in text: String) -> String? {
        text.split(separator: "\n").lazy.compactMap { line -> String? in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix(key + ":") else { return nil }
            return trimmed.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces)
        }.first
    }

    @Test func kubernetesTrustsOnlyTheIngressControllersRange() throws {
        let config = try String(contentsOf: Self.root.appendingPathComponent("deploy/kubernetes/configmap.yaml"), encoding: .utf8)
        #expect(!config.contains("- 10.0.0.0/8"), "the whole private range may vouch for any client address")
        #expect(config.contains("kubectl get pods -n ingress-nginx"))
    }
}
