import Synchronization

extension Task where Failure == Never {
    /// The task's value if it ends within `deadline`; nil if it is still running (it goes on, unawaited). The webhooks
    /// answer Kakao in time whatever their steps do.
    func value(orNilAfter deadline: Duration) async -> Success? {
        let race = FirstAnswer<Success?>()
        return await withCheckedContinuation { continuation in
            race.continuation = continuation
            let timer = Task<Void, Never> {
                try? await Task<Never, Never>.sleep(for: deadline)
                race.answer(nil)
            }
            Task<Void, Never> {
                let value = await self.value
                timer.cancel()
                race.answer(value)
            }
        }
    }
}

/// The first of several answers resumes the waiter; the later ones are dropped.
private final class FirstAnswer<Value: Sendable>: @unchecked Sendable {
    // Set once, before either task starts; read only under the flag below.
    var continuation: CheckedContinuation<Value, Never>?
    private let answered = Atomic<Bool>(false)

    func answer(_ value: Value) {
        guard answered.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        continuation?.resume(returning: value)
    }
}
