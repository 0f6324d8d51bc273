#ifndef MODELGEN_CALLOCATOR_H
#define MODELGEN_CALLOCATOR_H

/// Asks the C allocator to keep freed memory for reuse instead of returning it to the kernel
/// (glibc: blocks up to 32 MiB from the heap, no trimming). Does nothing on other C libraries.
void modelgen_keep_freed_memory(void);

#endif
