/// A Kakao user whose sessions ended at `at` (Unix seconds; they unlinked, or Kakao revoked their sessions or disabled
/// them): every instance refuses their ID tokens issued before it and drops their cached verifications
/// (docs/api.md#kakaos-unlink-webhook step 4, docs/api.md#kakaos-security-events). Or a user whose account changed at
/// `changedAt`: every instance drops their cached verifications and user record, and refuses nothing. Kept for
/// `UnlinkMark.lifetimeSeconds` after the later of the two.
public struct UnlinkMark: Sendable, Equatable {
    public let kakaoID: Int64
    /// 0 when the user's sessions have not ended, only their account changed.
    public let at: Int64
    public let changedAt: Int64

    public init(kakaoID: Int64, at: Int64, changedAt: Int64 = 0) {
        self.kakaoID = kakaoID
        self.at = at
        self.changedAt = changedAt
    }

    /// Whether ID tokens issued up to `at` are refused.
    public var endsSessions: Bool { at > 0 }

    /// 24 hours: longer than any Kakao ID token or cached verification lives.
    public static let lifetimeSeconds: Int64 = 24 * 60 * 60
}

/// The marks recorded after a cursor, in the order they were recorded, and the cursor to ask with next time.
public struct UnlinkMarkPage: Sendable, Equatable {
    public let marks: [UnlinkMark]
    public let cursor: Int64

    public init(marks: [UnlinkMark], cursor: Int64) {
        self.marks = marks
        self.cursor = cursor
    }
}
