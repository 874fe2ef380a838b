import Foundation
import Testing

/// docs/dependencies.md is kept true: its table of direct dependencies lists every `.package(url:…)` of Package.swift,
/// with the `from:` version the manifest asks for, and no other package; its table of system libraries names every
/// `pkgConfig:` of the manifest.
@Suite("docs/dependencies.md")
struct DependenciesDocumentTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// One `.package(url: "…", …)` of the manifest: its URL, and its `from:` version when it has one.
    struct ManifestPackage {
        let url: String
        let from: String?
    }

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    static func packages(in manifest: String) -> [ManifestPackage] {
        manifest.components(separatedBy: ".package(url: \"").dropFirst().map { chunk -> ManifestPackage in
            let url = String(chunk.prefix { $0 != "\"" })
            // The arguments of this `.package(…)` only: its traits hold brackets, never a parenthesis.
            let arguments = chunk.prefix { $0 != ")" }
            var from: String?
            if let marker = arguments.range(of: "from: \"") {
                from = String(arguments[marker.upperBound...].prefix { $0 != "\"" })
            }
            return ManifestPackage(url: url, from: from)
        }
    }

    /// The table rows (lines that begin with `| `) of the document's section `## <title>`.
    static func rows(ofSection title: String) throws -> [String] {
        let document = try read("docs/dependencies.md")
        let sections = document.components(separatedBy: "\n## ")
        let section = try #require(sections.first(where: { $0.hasPrefix(title + "\n") }), "no section \"## \(title)\" in docs/dependencies.md")
        return section.components(separatedBy: "\n").filter { $0.hasPrefix("| ") }
    }

    @Test func everyPackageOfTheManifestIsListedWithItsFromVersion() throws {
        let manifest = try Self.read("Package.swift")
        let packages = Self.packages(in: manifest)
        #expect(packages.count >= 10, "the manifest's packages were not found: \(packages.map(\.url))")
        let rows = try Self.rows(ofSection: "Direct dependencies")
        for package in packages {
            let row = rows.first(where: { $0.contains("`\(package.url)`") })
            #expect(row != nil, "\(package.url) is in Package.swift but not in docs/dependencies.md's direct dependencies")
            if let row, let from = package.from {
                #expect(row.contains("`from: \"\(from)\"`"), "Package.swift asks for \(package.url) from: \"\(from)\"; docs/dependencies.md says: \(row)")
            }
        }
    }

    @Test func theDirectDependenciesListNoPackageTheManifestLacks() throws {
        let manifest = try Self.read("Package.swift")
        let urls = Set(Self.packages(in: manifest).map(\.url))
        let rows = try Self.rows(ofSection: "Direct dependencies").filter { $0.contains("`https://") }
        #expect(rows.count == urls.count, "\(rows.count) rows for the \(urls.count) packages of Package.swift")
        for row in rows {
            #expect(urls.contains(where: { row.contains("`\($0)`") }), "not a package of Package.swift: \(row)")
        }
    }

    @Test func everySystemLibraryIsListed() throws {
        let manifest = try Self.read("Package.swift")
        let names = manifest.components(separatedBy: "pkgConfig: \"").dropFirst().map { chunk in String(chunk.prefix { $0 != "\"" }) }
        #expect(!names.isEmpty)
        let rows = try Self.rows(ofSection: "System libraries")
        for name in names {
            #expect(rows.contains(where: { $0.contains("`\(name)`") }), "pkg-config \(name) is in Package.swift but not in docs/dependencies.md's system libraries")
        }
    }
}
