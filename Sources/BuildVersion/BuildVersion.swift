/// What this binary is: the release it belongs to and the commit it was built from (docs/operations.md#versions).
/// `kakao-bridge --version`, the first log line, `/readyz` and `kakao_bridge_build_info` all say it.
public enum BuildVersion {
    /// The newest release in CHANGELOG.md (`BuildVersionTests` holds the two together): a build between releases names
    /// the last one, and its commit tells it apart.
    public static let version = "0.17.0"

    /// The commit's first 12 hexadecimal digits, read from git at build time by Plugins/BuildVersionPlugin; `unknown`
    /// when the build had no git and no `KAKAO_BRIDGE_COMMIT`.
    public static let commit = buildCommit

    /// `0.17.0 (commit 2f74694a1b2c)`: the line `--version` prints after the program's name.
    public static var description: String { "\(version) (commit \(commit))" }
}
