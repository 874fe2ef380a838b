// swift-tools-version:6.0
import PackageDescription

// The iOS client of docs/clients.md: Kakao Login, then kakao-bridge, then Firebase Auth with the custom token. It
// depends on nothing but Foundation, so that CI builds and tests it on Linux (.ci/run); the Kakao and Firebase SDK calls
// sit behind two protocols, whose ten-line adapters for the real SDKs are in docs/clients.md.
let package = Package(
    name: "swift-client",
    platforms: [.iOS(.v15), .macOS(.v12)],
    products: [.library(name: "KakaoBridgeClient", targets: ["KakaoBridgeClient"])],
    targets: [
        .target(name: "KakaoBridgeClient"),
        .testTarget(name: "KakaoBridgeClientTests", dependencies: ["KakaoBridgeClient"]),
    ]
)
