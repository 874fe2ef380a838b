@testable import KakaoBridge
import NIOCore
import NIOPosix
import Testing

/// Requests run on the event loop that read them (`LoopExecutor`): a task that prefers a loop's executor comes back to
/// that loop after every suspension, wherever it was resumed from.
@Suite struct LoopExecutorTests {
    @Test func knowsEveryLoopOfTheGroupHummingbirdServesOn() {
        for loop in MultiThreadedEventLoopGroup.singleton.makeIterator() {
            #expect(LoopExecutor.of(loop)?.loop === loop)
        }
    }

    @Test func knowsNoOtherLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        #expect(LoopExecutor.of(group.next()) == nil)
        try await group.shutdownGracefully()
    }

    @Test func currentIsTheLoopOfThisThread() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let onLoop = try await loop.submit { LoopExecutor.current?.loop === loop }.get()
        #expect(onLoop)
        #expect(LoopExecutor.current == nil)  // the test runs on Swift's own threads
    }

    @Test func aTaskThatPrefersALoopRunsOnItAfterEverySuspension() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let executor = try #require(LoopExecutor.of(loop))
        let elsewhere = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let onLoop = await withTaskExecutorPreference(executor) { () async -> [Bool] in
            await Task.yield()
            var seen = [loop.inEventLoop]
            // Resumed from another thread, as curl's thread resumes a login waiting for Kakao.
            await withCheckedContinuation { continuation in
                elsewhere.next().execute { continuation.resume() }
            }
            seen.append(loop.inEventLoop)
            // A child task inherits the preference.
            async let child = loop.inEventLoop
            seen.append(await child)
            return seen
        }
        try await elsewhere.shutdownGracefully()
        #expect(onLoop == [true, true, true])
    }

    @Test func anUnstructuredTaskGivenThePreferenceRunsOnTheLoop() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let executor = try #require(LoopExecutor.of(loop))
        let onLoop = await Task(executorPreference: executor) { () async -> Bool in
            await Task.yield()
            return loop.inEventLoop
        }.value
        #expect(onLoop)
    }
}
