import ArgumentParser
import CProcessStart
#if canImport(Glibc)
import Glibc
#endif

/// What the process does to itself before it reads a secret. Every call goes through `check`, which names the call that
/// failed; a failure stops the start (exit 71, EX_OSERR) rather than run with a weaker process than documented.
public enum ProcessHardening {
    public struct Failure: Error, CustomStringConvertible {
        let call: String
        let code: Int32
        public var description: String { "\(call) failed: \(String(cString: strerror(code))) (errno \(code))" }
    }

    /// A core dump would hold the service-account private key, the hook secret, the admin key and tokens in flight
    /// (deploy/README.md#core-dumps). Limit 0 stops the kernel writing one (and a raise of it: hard limit 0 too); not
    /// dumpable also covers a core pattern that pipes to a handler (which ignores the limit) and keeps other processes of
    /// the same user from attaching to it or reading its memory through /proc.
    public static func noCoreDumps() throws(Failure) {
        try check("setrlimit(RLIMIT_CORE, 0)") { kb_core_limit_zero() }
        try check("prctl(PR_SET_DUMPABLE, 0)") { kb_set_dumpable(0) }
    }

    /// CProcessStart blocked and ignored SIGHUP before `main` (process_start.c says why both); if a call failed there,
    /// both are tried once more here, and a second failure is reported like any other.
    public static func hangupHeld() throws(Failure) {
        guard kb_hangup_blocked_at_load() == 0 else { return }
        try check("sigprocmask(SIG_BLOCK, SIGHUP)") { kb_block_hangup() }
        try check("sigaction(SIGHUP, SIG_IGN)") { kb_ignore_hangup() }
    }

    /// At start of `serve` and `sandbox`: a message naming the call and exit 71.
    public static func applyOrExit() throws {
        do {
            try noCoreDumps()
        } catch {
            Console.error("kakao-bridge: cannot start: \(error)")
            throw ExitCode(71)
        }
    }

    private static func check(_ call: String, _ body: () -> Int32) throws(Failure) {
        guard body() == 0 else { throw Failure(call: call, code: errno) }
    }
}
