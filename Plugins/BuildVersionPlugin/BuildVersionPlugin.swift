import Foundation
import PackagePlugin

/// Writes `BuildCommit.swift` into the `BuildVersion` target before every build: the commit the binary is built from
/// (docs/operations.md#versions). A prebuild command, because its input (the repository's `HEAD`) is not a file SwiftPM
/// could name; the script rewrites the file only when the commit changed, so an unchanged checkout recompiles nothing.
///
/// Without git, or outside a clone (a source archive, a container build that copies only the sources), the commit is
/// `KAKAO_BRIDGE_COMMIT` when set, otherwise `unknown`: a build never fails for want of a version.
@main
struct BuildVersionPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "Generated")
        return [
            .prebuildCommand(
                displayName: "Reading the commit for BuildVersion",
                executable: URL(filePath: "/bin/sh"),
                arguments: ["-c", Self.script, "build-version", context.package.directoryURL.path, output.path],
                // SwiftPM runs the command with this environment only: the build's own variable is passed on by name.
                environment: ["KAKAO_BRIDGE_COMMIT": ProcessInfo.processInfo.environment["KAKAO_BRIDGE_COMMIT"] ?? ""],
                outputFilesDirectory: output
            )
        ]
    }

    /// `$1` the package's directory, `$2` the output directory. Only hexadecimal digits reach the Swift file.
    static let script = #"""
        set -u
        mkdir -p "$2"
        commit=$(git -C "$1" rev-parse --short=12 HEAD 2>/dev/null) || commit=""
        [ -n "$commit" ] || commit=$(printf '%.12s' "${KAKAO_BRIDGE_COMMIT:-}")
        case "$commit" in ""|*[!0-9a-f]*) commit=unknown ;; esac
        file="$2/BuildCommit.swift"
        printf '// Generated at build time by Plugins/BuildVersionPlugin: the commit of this build.\nlet buildCommit = "%s"\n' "$commit" > "$file.new"
        if cmp -s "$file.new" "$file"; then rm -f "$file.new"; else mv "$file.new" "$file"; fi
        """#
}
