#if canImport(Glibc)
import Glibc
#endif

/// Files the operator names (the service-account key, a secret's `_file`), read with plain POSIX calls: as a stream, so
/// that a pipe or FIFO works, and never past a limit.
package enum FileBytes {
    /// The whole file, read as a stream rather than mapped by size, so a key handed over through a pipe
    /// (`<(vault read …)`, a FIFO) works too. Nil when it cannot be opened or read. Reading stops past `limit` bytes, so
    /// a path that names a device or a huge file by mistake cannot fill memory: more than `limit` back means "too large".
    package static func read(path: String, limit: Int = .max) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > limit { return bytes }
        }
    }

    /// The permission bits (`st_mode & 0o7777`), following links as `open` does; nil when the file cannot be examined.
    package static func mode(path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_mode & 0o7777)
    }

    /// Creates `path` empty with `mode` when it does not exist (an existing file is left as it is); false when it could
    /// not be created.
    package static func createIfMissing(path: String, mode: Int) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(mode))
        if fd >= 0 {
            close(fd)
            return true
        }
        return errno == EEXIST
    }
}
