#include "callocator.h"

#if defined(__GLIBC__)
#include <limits.h>
#include <malloc.h>
#endif

void modelgen_keep_freed_memory(void) {
#if defined(__GLIBC__)
    // 32 MiB is the largest mmap threshold glibc accepts on 64-bit systems.
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
}
