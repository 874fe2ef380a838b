import BridgeSupport
import Foundation
import Synchronization

/// A Unix clock a test moves by hand; it starts at the real time, as the stand-ins' own clocks do.
package final class ManualUnixClock: Sendable {
    private let seconds: Atomic<Int64>

    package init(_ start: Int64 = Int64(Date().timeIntervalSince1970)) { seconds = Atomic(start) }

    package var now: Int64 { seconds.load(ordering: .relaxed) }
    package func advance(_ delta: Int64) { seconds.add(delta, ordering: .relaxed) }
    /// What the code under test is given.
    package var clock: UnixClock { UnixClock { [seconds = self] in seconds.now } }
}
