/// Idle handles kept for reuse, at most `maxIdle` of them; a handle given back to a full pool is let go of.
///
/// Pure bookkeeping with no curl in it: the curl thread keeps one of `EasyHandle`s (`CurlThreadDriver`), and the tests
/// use plain values. Last in, first out, so the handle used most recently (its buffers warm in the cache) goes out
/// next; a stack needs nothing more than an array.
struct HandlePool<Handle> {
    let maxIdle: Int
    private var idle: [Handle] = []

    init(maxIdle: Int) {
        self.maxIdle = max(0, maxIdle)
    }

    var count: Int { idle.count }

    /// The most recently returned idle handle, or a new one from `make` when none is idle.
    mutating func take<Failure: Error>(orMake make: () throws(Failure) -> Handle) throws(Failure) -> Handle {
        if let handle = idle.popLast() { return handle }
        return try make()
    }

    /// Keeps `handle` for reuse; `false` when the pool is full and the caller's handle is simply dropped.
    @discardableResult
    mutating func giveBack(_ handle: Handle) -> Bool {
        guard idle.count < maxIdle else { return false }
        idle.append(handle)
        return true
    }

    /// Lets go of every idle handle.
    mutating func removeAll() {
        idle = []
    }
}
