import BridgeSupport
import Synchronization

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let seconds: Mutex<Int64>

    init(_ start: Int64) { seconds = Mutex(start) }

    var now: Int64 {
        get { seconds.withLock { $0 } }
        set { seconds.withLock { $0 = newValue } }
    }

    var unixClock: UnixClock { UnixClock { self.now } }
}
