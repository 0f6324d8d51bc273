#ifndef MODELGEN_CALLOCATOR_H
#define MODELGEN_CALLOCATOR_H

/// Asks the C allocator to keep freed memory for reuse instead of returning it to the kernel
/// (glibc: blocks up to 32 MiB from the heap, no trimming). Returns how many settings it
/// applied: 2 on glibc, 0 on other C libraries (which are left as they are).
int modelgen_keep_freed_memory(void);

#endif
