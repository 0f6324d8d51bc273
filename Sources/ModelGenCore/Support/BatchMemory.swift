import CAllocator

/// The C allocator's settings for a process that runs one compilation and exits.
///
/// A `generate` of a large model builds and drops tens of megabytes of buffers (the output alone
/// is ~70 MB for 2,000 entities). By default glibc hands large blocks back to the kernel as soon
/// as they are freed (blocks over its mmap threshold, and the free top of the heap over its trim
/// threshold), so the next buffer of that size is fresh memory again: a page fault and a cleared
/// page for every 4 KiB. The executables (`modelgen`, and `modelgen-bench` for the pipelines
/// it measures) ask it to keep what it was given instead; the process's memory then stays at its
/// peak until it exits. The library never changes this itself: a program linking it decides.
public enum BatchMemory {
    /// Blocks up to 32 MiB come from the heap, and freed memory is kept for reuse.
    /// - Returns: whether the allocator took the settings (always on glibc; other C libraries
    ///   are left as they are).
    @discardableResult
    public static func keepFreedMemory() -> Bool {
        modelgen_keep_freed_memory() == 2
    }
}
