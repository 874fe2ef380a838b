// swift-tools-version:6.2
import Foundation
import PackageDescription

// libFuzzer targets for the parsers that read what strangers send. A package of its own, so that neither `swift build`
// nor `swift test` of the service ever builds them. Build and run with `scripts/fuzz [SECONDS]`:
//   swift build --package-path Fuzz -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
// A path dependency's identity is its directory's name, which depends on where the repository was cloned.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent
let targets = ["FuzzIDToken", "FuzzKakaoIDToken", "FuzzSecurityEvent", "FuzzKakaoReplies", "FuzzGoogleReplies", "FuzzConfig", "FuzzJSON", "FuzzNaverUnlink", "FuzzLineIDToken"]

let package = Package(
    name: "kakao-bridge-fuzz",
    platforms: [.macOS(.v14)],
    dependencies: [.package(path: "..")],
    targets: [
        // libFuzzer's driver, started from the `<Target>_main` symbol SwiftPM gives an executable's entry point.
        .target(name: "FuzzDriver"),
    ] + targets.map { name in
        .executableTarget(name: name, dependencies: ["FuzzDriver", .product(name: "KakaoBridge", package: root)])
    }
)
