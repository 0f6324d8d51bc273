#include "callocator.h"

// Any C library header defines __GLIBC__ on glibc (through <features.h>); without one included
// first, the check below would silently compile the settings out.
#include <limits.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

int modelgen_keep_freed_memory(void) {
#if defined(__GLIBC__)
    // 32 MiB is the largest mmap threshold glibc accepts on 64-bit systems.
    return mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024) + mallopt(M_TRIM_THRESHOLD, INT_MAX);
#else
    return 0;
#endif
}

int modelgen_settle_freed_memory(void) {
#if defined(__GLIBC__)
    // glibc's mallopt consolidates the main arena's freed small blocks before it applies any
    // setting; M_PERTURB 0 is the default (no perturbation), so nothing else changes.
    return mallopt(M_PERTURB, 0);
#else
    return 0;
#endif
}
