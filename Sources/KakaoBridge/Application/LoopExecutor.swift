import NIOCore
import NIOPosix

/// One of NIO's event loops as a Swift task executor: a connection's task, and the login's child task, run on the loop
/// that owns the connection's socket, so a login crosses threads only to curl's thread and back.
final class LoopExecutor: TaskExecutor {
    let loop: any EventLoop

    private init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // Run as this task executor, so that the runtime knows the job is where its task prefers to be.
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// The executor of `loop`, when it is one of the loops Hummingbird serves on (NIO's singleton group).
    static func of(_ loop: any EventLoop) -> LoopExecutor? { all[ObjectIdentifier(loop)] }

    /// The executor of the loop this thread runs, if it runs one.
    static var current: LoopExecutor? { MultiThreadedEventLoopGroup.currentEventLoop.flatMap(of) }

    private static let all: [ObjectIdentifier: LoopExecutor] = {
        var all: [ObjectIdentifier: LoopExecutor] = [:]
        for loop in MultiThreadedEventLoopGroup.singleton.makeIterator() { all[ObjectIdentifier(loop)] = LoopExecutor(loop) }
        return all
    }()
}
