// SIGHUP is held off from before `main` (docs/configuration.md#reloading-with-sighup). The dynamic loader, Swift's
// runtime and argument parsing take milliseconds after exec, and until the reload service's signal source is registered
// SIGHUP's default action would end the process: `systemctl reload` right after `start` (Type=exec counts the unit as
// started at exec) did.
//
// Blocked: every thread inherits the mask of the thread that starts it, so no thread takes the signal, and libdispatch's
// signal source on Linux reads it through signalfd, which needs it blocked. Also ignored, because blocking alone is not
// enough: Swift's async `main` parks the main thread in libdispatch's `dispatch_main`, which waits in `sigsuspend` with
// an empty mask, and a pending SIGHUP is delivered there, at its default action. Ignored, an early one is discarded;
// once the reload service registers its source, libdispatch installs its own handler and later ones reload.
//
// Run from `.preinit_array`: in an executable it runs after the loader's relocations and before every library's
// initializers (Swift's runtime among them), the earliest a program can run code of its own. The window that remains,
// the loader mapping and relocating the libraries (about 0.5 ms), only the parent can close (by starting the process
// with SIGHUP blocked or ignored).
#include "kb_process_start.h"

#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>

static int hangup_blocked = 0;

int kb_block_hangup(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGHUP);
    return sigprocmask(SIG_BLOCK, &set, NULL);
}

int kb_ignore_hangup(void) {
    struct sigaction ignore;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    return sigaction(SIGHUP, &ignore, NULL);
}

static void kb_hold_hangup_at_load(int argc, char **argv, char **envp) {
    (void)argc;
    (void)argv;
    (void)envp;
    hangup_blocked = kb_block_hangup() == 0 && kb_ignore_hangup() == 0;
}

__attribute__((section(".preinit_array"), used)) static void (*const kb_preinit_hold_hangup)(int, char **, char **) =
    kb_hold_hangup_at_load;

int kb_hangup_blocked_at_load(void) { return hangup_blocked; }

int kb_core_limit_zero(void) {
    struct rlimit none = {0, 0};
    return setrlimit(RLIMIT_CORE, &none);
}

int kb_set_dumpable(int value) { return prctl(PR_SET_DUMPABLE, (unsigned long)value, 0UL, 0UL, 0UL); }

int kb_get_dumpable(void) { return prctl(PR_GET_DUMPABLE, 0UL, 0UL, 0UL, 0UL); }
