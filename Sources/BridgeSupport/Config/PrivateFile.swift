/// The mode rule of docs/configuration.md#secrets-in-files, one rule for every file that holds a secret: the
/// service-account key, a secret's `_file`, and a configuration file with a secret written in it. A file that other users
/// of the machine can read or write (`mode & 0o007`) is refused with the fix; group access stays allowed (Kubernetes
/// secrets mounted with `fsGroup` are 0440).
package enum PrivateFile {
    /// The file's permission bits when others may read or write it; nil when it is private, or cannot be examined (reading
    /// it then reports why).
    package static func exposedMode(_ path: String) -> Int? {
        guard let mode = FileBytes.mode(path: path), mode & 0o007 != 0 else { return nil }
        return mode
    }

    /// Why `path` is refused and how to fix it, or nil when it is private. Never the file's content.
    package static func refusal(_ path: String) -> String? {
        exposedMode(path).map { refusal(path, mode: $0) }
    }

    package static func refusal(_ path: String, mode: Int) -> String {
        "\(path) is readable or writable by every user of this machine (mode \(String(mode & 0o777, radix: 8))); "
            + "make it private to the service: chmod 600 \(path) (or chmod 640 with a group only the service is in)"
    }

    /// The rule for the SQLite state file (docs/operations.md#shared-state): whoever can write it, or the directory that
    /// holds it (and so replace it), can queue account actions, so a file or directory that others may write
    /// (`mode & 0o002`, a shared sticky directory such as /tmp included) is refused, with the fix. Reading by others is
    /// not refused here: the file is created 0600, and holds no secret.
    package static func writableRefusal(stateFile path: String) -> String? {
        let directory = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        if let mode = FileBytes.mode(path: directory), mode & 0o002 != 0 {
            return "\(directory) (the directory of \(path)) is writable by every user of this machine (mode "
                + "\(String(mode & 0o777, radix: 8))), so anyone could replace the state file and queue account actions; "
                + "keep it in a directory only the service can write, e.g. /var/lib/kakao-bridge (chmod 700)"
        }
        if let mode = FileBytes.mode(path: path), mode & 0o002 != 0 {
            return "\(path) is writable by every user of this machine (mode \(String(mode & 0o777, radix: 8))), so anyone "
                + "could queue account actions; make it private to the service: chmod 600 \(path)"
        }
        return nil
    }
}
