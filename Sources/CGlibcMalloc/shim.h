// glibc's malloc tuning, which Swift's Glibc module does not include (<malloc.h>). Only what the service sets.
#ifndef KB_GLIBC_MALLOC_SHIM_H
#define KB_GLIBC_MALLOC_SHIM_H

#include <malloc.h>

// mallopt(M_ARENA_MAX, count): 1 on success, 0 when glibc refused the value.
static inline int kb_malloc_set_arena_max(int count) {
    return mallopt(M_ARENA_MAX, count);
}

#endif
