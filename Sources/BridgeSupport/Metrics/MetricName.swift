/// Every metric `/metrics` shows (docs/operations.md#scraping), with its type and its `# HELP` text: the one table of
/// metric names. Code that makes a metric names it here (`Counter(label: MetricName.requests.rawValue, …)`), the
/// Prometheus backend takes the help text from here (`BridgeMetrics`), and the `process_*` lines are rendered from here
/// at scrape time (`ProcessMetrics`). A metric missing from the table would have no `# HELP` line, which a test refuses.
///
/// Help texts describe the metric and its labels; label values are route templates, methods, statuses, upstream names
/// and outcomes only, never a token, uid or email.
package enum MetricName: String, CaseIterable, Sendable {
    case requests = "kakao_bridge_requests_total"
    case requestDuration = "kakao_bridge_request_duration_seconds"
    case requestsInFlight = "kakao_bridge_requests_in_flight"
    case loginsWaiting = "kakao_bridge_logins_waiting"
    case rateLimited = "kakao_bridge_rate_limited_total"
    case problems = "kakao_bridge_problems_total"
    case upstreamCalls = "kakao_bridge_upstream_calls_total"
    case upstreamDuration = "kakao_bridge_upstream_duration_seconds"
    case cache = "kakao_bridge_cache_total"
    case accessTokenFetches = "kakao_bridge_access_token_fetches_total"
    case firebaseAdminCalls = "kakao_bridge_firebase_admin_calls_total"
    case userSync = "kakao_bridge_user_sync_total"
    case unlinkCalls = "kakao_bridge_unlink_total"
    case unlinkSteps = "kakao_bridge_unlink_steps_total"
    case unlinkEvents = "kakao_bridge_unlink_events"
    case securityEvents = "kakao_bridge_security_events_total"
    case accountDeletions = "kakao_bridge_account_deletions_total"
    case logins = "kakao_bridge_logins_total"
    case stateStoreUp = "kakao_bridge_state_store_up"
    case reloads = "kakao_bridge_reloads_total"
    /// Made by the version's code, which names it with this case.
    case buildInfo = "kakao_bridge_build_info"

    // The process, under the names and with the meanings every Prometheus client library gives them, so that existing
    // dashboards and alerts work unchanged.
    case processCPUSeconds = "process_cpu_seconds_total"
    case processResidentMemory = "process_resident_memory_bytes"
    case processVirtualMemory = "process_virtual_memory_bytes"
    case processOpenFDs = "process_open_fds"
    case processMaxFDs = "process_max_fds"
    case processStartTime = "process_start_time_seconds"

    /// The Prometheus type, as the `# TYPE` line says it.
    package enum Kind: String, Sendable {
        case counter
        case gauge
        case histogram
    }

    package var kind: Kind {
        switch self {
        case .requests, .rateLimited, .problems, .reloads, .upstreamCalls, .cache, .accessTokenFetches, .firebaseAdminCalls, .userSync, .unlinkCalls,
             .unlinkSteps, .securityEvents, .accountDeletions, .logins, .processCPUSeconds:
            .counter
        case .requestDuration, .upstreamDuration:
            .histogram
        case .requestsInFlight, .loginsWaiting, .unlinkEvents, .stateStoreUp, .buildInfo, .processResidentMemory, .processVirtualMemory,
             .processOpenFDs, .processMaxFDs, .processStartTime:
            .gauge
        }
    }

    /// The `# HELP` text: one line, no backslash (the exposition format would need it escaped).
    package var help: String {
        switch self {
        case .requests:
            "Requests answered, by route template (or unmatched), method and the status the client got."
        case .requestDuration:
            "Time from a request's arrival to its answer, waiting for a login's turn included, by route, method and status."
        case .requestsInFlight:
            "Requests being served now."
        case .loginsWaiting:
            "Logins waiting for their turn (at most 64 per core are worked on at once)."
        case .rateLimited:
            "Requests refused with 429, by limit: client (rate_limit.per_client_per_minute) or hook (rate_limit.hook_per_minute)."
        case .problems:
            "Problems answered (docs/errors.md), by route template (or unmatched) and code."
        case .reloads:
            "Configuration reloads (SIGHUP), by outcome: applied, or refused (the running configuration is kept)."
        case .upstreamCalls:
            "Calls to an upstream, by upstream and outcome (ok, 4xx, 5xx, timeout, error, overloaded)."
        case .upstreamDuration:
            "Duration of upstream calls, retries included, by upstream and outcome."
        case .cache:
            "Lookups in the service's caches, by cache and result (hit, miss, shared: a first verification joined in flight)."
        case .accessTokenFetches:
            "Google access tokens fetched for the Admin API, by outcome."
        case .firebaseAdminCalls:
            "Calls to the Firebase Admin API, by operation and outcome."
        case .userSync:
            "Firebase user records brought in step with the Kakao profile at login, by outcome."
        case .unlinkCalls:
            "Calls of Kakao's unlink webhook, by outcome."
        case .unlinkSteps:
            "Attempts of the unlink and security event steps, by step (firebase, backend) and outcome (done, retry, failed)."
        case .unlinkEvents:
            "Unlink and security events in the state store, by state: pending (steps still to do) or failed (given up)."
        case .accountDeletions:
            "Account deletions, by provider (kakao, naver, line) and outcome (done: answered 200, pending: answered 202, failed: given up)."
        case .securityEvents:
            "Kakao's security events, by event (the type's last path segment) and outcome."
        case .logins:
            "Logins (the token exchange and the legacy route), by provider (kakao, naver, line) and outcome (ok, refused: 4xx, failed: 5xx)."
        case .stateStoreUp:
            "Whether the state store (state.url) answers: 1, or 0 while it cannot be reached or has not answered since start."
        case .buildInfo:
            "The running build: its version and commit as labels; always 1."
        case .processCPUSeconds:
            "Total user and system CPU time spent in seconds."
        case .processResidentMemory:
            "Resident memory size in bytes."
        case .processVirtualMemory:
            "Virtual memory size in bytes."
        case .processOpenFDs:
            "Number of open file descriptors."
        case .processMaxFDs:
            "Maximum number of open file descriptors."
        case .processStartTime:
            "Start time of the process since unix epoch in seconds."
        }
    }
}
