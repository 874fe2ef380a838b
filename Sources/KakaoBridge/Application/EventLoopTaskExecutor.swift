import NIOCore

/// A connection's event loop as the task executor of the task that serves it (`GuardedHTTP1Channel.handle`).
///
/// Hummingbird serves each connection in a child task of its accept loop. Without a preference that task runs wherever
/// the global executor puts it, and every resumption goes back through it: a continuation resumed by the curl thread
/// lands on any thread, and the answer written from there crosses over to the channel's loop once more. With this
/// preference the request is read, handled (signature included) and answered on the one loop that owns the socket, and
/// the curl thread's completion costs a single wakeup of that loop.
final class EventLoopTaskExecutor: TaskExecutor {
    private let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // Run as this task executor, so that the runtime knows the job is where its task prefers to be and does not
        // enqueue it again at its next hop.
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
