#ifndef MODELGEN_CALLOCATOR_H
#define MODELGEN_CALLOCATOR_H

/// Asks the C allocator to keep freed memory for reuse instead of returning it to the kernel
/// (glibc: blocks up to 32 MiB from the heap, no trimming). Returns how many settings it
/// applied: 2 on glibc, 0 on other C libraries (which are left as they are).
int modelgen_keep_freed_memory(void);

/// Does now the work the C allocator deferred when blocks were freed (glibc: freed small blocks
/// wait in "fast bins" until the next large request of the thread's heap, which then merges them
/// all: tens of milliseconds after a large document is freed), so that it is charged to the code
/// that freed them, not to whatever allocates next. Returns 1 when it did (glibc: it also sets
/// M_PERTURB to its default, 0), 0 on other C libraries. For measurements only.
int modelgen_settle_freed_memory(void);

#endif
