import BridgeJSON

/// Reads Google's error envelope `{"error": {"code", "message", "status"}}` the way the Admin SDKs do: the code is the
/// start of `message` for 400s (`EMAIL_EXISTS`, `USER_NOT_FOUND : …`) and `status` for 401/403 (`PERMISSION_DENIED`).
/// Only code-shaped text leaves here, so a detail or log line never echoes what Google quoted back (an email, a uid).
/// The one reader of that envelope: the Admin API, Identity Toolkit and the IAM Credentials API all read it here.
package enum GoogleErrorCode {
    package struct Parsed: Sendable, Equatable {
        /// The code at the start of `message`, when there is one.
        package var messageCode: String?
        /// `status`, e.g. `INVALID_ARGUMENT`, `PERMISSION_DENIED`.
        package var status: String?
        /// `message` as Google wrote it: only for a log line, through `loggable`.
        package var message: String?

        /// `EMAIL_EXISTS (INVALID_ARGUMENT)`, `PERMISSION_DENIED`, or `no error code`: what a problem's detail carries.
        package var summary: String {
            switch (messageCode, status) {
            case (let code?, let status?) where code != status: "\(code) (\(status))"
            case (let code?, _): code
            case (nil, let status?): status
            case (nil, nil): "no error code"
            }
        }
    }

    package static func parse(_ body: [UInt8]) -> Parsed {
        let error = JSONValue.parse(body)?["error"]
        let message = error?["message"]?.stringValue
        return Parsed(
            messageCode: message.flatMap(leadingCode),
            status: error?["status"]?.stringValue.flatMap { isCode($0) ? $0 : nil },
            message: message
        )
    }

    /// `EMAIL_EXISTS`, `USER_NOT_FOUND : explanation`, `INVALID_ID_TOKEN:explanation` → the code; a sentence → `nil`,
    /// even one that begins with a capitalised word ("API key not valid. …" is no code `API`).
    package static func leadingCode(_ message: String) -> String? {
        let head = message.prefix { $0 != " " && $0 != ":" }
        let rest = message.dropFirst(head.count).drop { $0 == " " }
        return isCode(head) && (rest.isEmpty || rest.hasPrefix(":")) ? String(head) : nil
    }

    /// Upper-case letters, digits and `_`, 2 to 64 of them.
    package static func isCode(_ text: some StringProtocol) -> Bool {
        (2...64).contains(text.count) && text.allSatisfy { ($0.isASCII && ($0.isUppercase || $0.isNumber)) || $0 == "_" }
    }

    /// A description for a log line: bounded, one line, and with any word that holds an `@` (an email, a service
    /// account's name) left out, since no email reaches a log line.
    package static func loggable(_ text: String) -> String {
        let words = text.prefix(160).split(whereSeparator: { $0.isNewline || $0 == " " || $0 == "\t" })
        return words.map { $0.contains("@") ? "[address]" : String($0) }.joined(separator: " ")
    }

    /// OAuth error codes are lower-case (`invalid_grant`); keep them readable but bounded.
    package static func sanitized(_ text: String) -> String {
        String(text.prefix(64).filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == ".") })
    }
}
