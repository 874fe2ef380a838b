import CCurl

/// The one place where libcurl return codes become `HTTPClientError`, so every failure names its call. Stateless; used
/// on the curl thread, and once (global init, multi handle setup) on the thread that makes the client.
enum CurlCall {
    /// - Parameters:
    ///   - detail: the easy handle's CURLOPT_ERRORBUFFER text, which is more specific than curl_easy_strerror.
    ///   - capExceeded: our write callback refused data because of `maxResponseBytes`.
    static func check(
        _ code: CURLcode,
        _ call: String,
        detail: String? = nil,
        capExceeded: Bool = false
    ) throws(HTTPClientError) {
        guard code != CURLE_OK else { return }
        throw error(code, call, detail: detail, capExceeded: capExceeded)
    }

    static func check(_ code: CURLMcode, _ call: String) throws(HTTPClientError) {
        guard code != CURLM_OK else { return }
        throw HTTPClientError(kind: .transfer, call: call, message: String(cString: curl_multi_strerror(code)))
    }

    static func error(
        _ code: CURLcode,
        _ call: String,
        detail: String? = nil,
        capExceeded: Bool = false
    ) -> HTTPClientError {
        let text = detail.flatMap { $0.isEmpty ? nil : $0 } ?? String(cString: curl_easy_strerror(code))
        return HTTPClientError(kind: kind(of: code, capExceeded: capExceeded), call: call, message: text)
    }

    private static func kind(of code: CURLcode, capExceeded: Bool) -> HTTPClientError.Kind {
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_SSL_CONNECT_ERROR:
            return .connect
        case CURLE_UNSUPPORTED_PROTOCOL:
            return .protocolNotAllowed
        case CURLE_URL_MALFORMAT:
            return .invalidRequest
        // MAXFILESIZE trips before the body when Content-Length is known; the write cap catches the rest.
        case CURLE_FILESIZE_EXCEEDED:
            return .responseTooLarge
        case CURLE_WRITE_ERROR where capExceeded:
            return .responseTooLarge
        default:
            return .transfer
        }
    }
}
