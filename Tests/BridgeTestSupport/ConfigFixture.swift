import BridgeSupport

/// The smallest valid configuration and its problems, for the configuration suites of every layer (ConfigTests in
/// BridgeSupportTests; the suites in KakaoBridgeTests that also hold a setting against ReloadService).
package enum ConfigFixture {
    package static let minimal = """
        kakao:
          app_id: 42
        firebase:
          service_account_file: /tmp/sa.json
        """

    package static func problems(yaml: String = minimal, environment: [String: String] = [:]) -> [String] {
        do {
            _ = try ConfigLoader.parse(yaml: yaml, environment: environment)
            return []
        } catch {
            return error.problems
        }
    }

    package static func problems(_ mutate: (inout BridgeConfig) -> Void) -> [String] {
        var config = try! ConfigLoader.parse(yaml: minimal, environment: [:])
        mutate(&config)
        return ConfigLoader.validate(config)
    }
}
