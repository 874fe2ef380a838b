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

    @Test func aTaskStartedImmediatelyOnTheLoopRunsThereUntilItSuspends() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let executor = try #require(LoopExecutor.of(loop))
        let onLoop = await withTaskExecutorPreference(executor) { () async -> Bool in
            // What `RequestAdmission` and the Kakao cache do: a login with no outside call never leaves the loop.
            await Task.immediate { loop.inEventLoop }.value
        }
        #expect(onLoop)
    }
}
