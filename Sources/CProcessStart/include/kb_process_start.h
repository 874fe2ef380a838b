// What the executable must do to itself before anything else, and the two process settings Swift's Glibc module leaves
// out (<sys/prctl.h>). Only the executable links this (Sources/kakao-bridge/ProcessHardening.swift).
#ifndef KB_PROCESS_START_H
#define KB_PROCESS_START_H

// 1 when the load-time function (.preinit_array) blocked and ignored SIGHUP, 0 if one of its calls failed. Swift calls it
// at the top of main, which also keeps this object file in the link.
int kb_hangup_blocked_at_load(void);

// sigaction(SIGHUP, SIG_IGN): 0, or -1 with errno.
int kb_ignore_hangup(void);

// Blocks SIGHUP in the calling thread: 0, or -1 with errno.
int kb_block_hangup(void);

// setrlimit(RLIMIT_CORE, {0, 0}): 0, or -1 with errno.
int kb_core_limit_zero(void);

// prctl(PR_SET_DUMPABLE, value): 0, or -1 with errno.
int kb_set_dumpable(int value);

// prctl(PR_GET_DUMPABLE): 0 or 1 (2 for suid-dumpable), or -1 with errno.
int kb_get_dumpable(void);

#endif
