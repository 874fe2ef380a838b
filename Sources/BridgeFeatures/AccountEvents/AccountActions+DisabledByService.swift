import BridgeSupport
import StateStore
import Upstreams

/// The users the service disabled for Kakao's `account-disabled`, kept in the state store: `account-enabled` enables
/// only those, never a user someone else disabled.
extension AccountActions {
    func remember(_ kakaoID: Int64, disabledByService: Bool) async throws(Problem) {
        do {
            try await shared.store.setDisabledByService(kakaoID: kakaoID, disabledByService, at: clock.now())
        } catch {
            throw error.problem
        }
    }

    func isDisabledByService(_ kakaoID: Int64) async throws(Problem) -> Bool {
        do {
            return try await shared.store.isDisabledByService(kakaoID: kakaoID)
        } catch {
            throw error.problem
        }
    }
}
