import NIOCore
import NIOPosix

/// One of NIO's event loops as a Swift task executor. A connection's task prefers the loop that owns its socket, so a
/// request is read, answered and written on one thread: a login that needs no outside call (a cached Kakao answer, a
/// Kakao ID token) crosses no thread at all, and one that calls Kakao crosses only to curl's thread and back
/// (docs/benchmarks.md#memory-and-speed-rules-in-the-code).
final class LoopExecutor: TaskExecutor {
    let loop: any EventLoop

    private init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // Run as this task executor, so that the runtime knows the job is where its task prefers to be and keeps it here.
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// The executor of `loop` when it is one of the loops of NIO's shared group, which Hummingbird serves on; nil for a
    /// loop of any other group (the connection then runs on Swift's global executor, as it would without this).
    static func of(_ loop: any EventLoop) -> LoopExecutor? { all[ObjectIdentifier(loop)] }

    /// The executor of the loop this thread runs, if it runs one of them.
    static var current: LoopExecutor? { MultiThreadedEventLoopGroup.currentEventLoop.flatMap(of) }

    /// Where the features resume work that waited on an outside call (`Features.assemble(placement:)`): the calling
    /// request's loop. Here rather than at each assembly, so that a login runs no code of the assembling files.
    static let placement: @Sendable () -> (any TaskExecutor)? = { current }

    private static let all: [ObjectIdentifier: LoopExecutor] = {
        var all: [ObjectIdentifier: LoopExecutor] = [:]
        for loop in MultiThreadedEventLoopGroup.singleton.makeIterator() { all[ObjectIdentifier(loop)] = LoopExecutor(loop) }
        return all
    }()
}
