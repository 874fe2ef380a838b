import CGlibcMalloc
import Glibc

/// glibc gives each thread that allocates while another holds the lock an arena of its own, up to eight per core, and
/// memory freed in one arena serves only that arena. The service's threads (two event loops, the task pool, the curl
/// thread) share two arenas instead, which lowers `crowd`'s peak (docs/benchmarks.md#memory-and-speed-rules-in-the-code). Set here, not in each unit file, so the
/// systemd install, the container and a binary started by hand behave alike; an operator's own `MALLOC_ARENA_MAX` (or
/// glibc tunable) wins.
public enum MallocArenas {
    public static let count: Int32 = 2

    public static func limit() {
        let tunables = getenv("GLIBC_TUNABLES").map { String(cString: $0) } ?? ""
        guard getenv("MALLOC_ARENA_MAX") == nil, !tunables.contains("glibc.malloc.arena_max") else { return }
        _ = kb_malloc_set_arena_max(count)
    }
}
