/// A Kakao user who unlinked at `at` (Unix seconds): every instance refuses their ID tokens issued before it and drops
/// their cached verifications (CONTRACT §8 step 4). Kept for `UnlinkMark.lifetimeSeconds`.
public struct UnlinkMark: Sendable, Equatable {
    public let kakaoID: Int64
    public let at: Int64

    public init(kakaoID: Int64, at: Int64) {
        self.kakaoID = kakaoID
        self.at = at
    }

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
