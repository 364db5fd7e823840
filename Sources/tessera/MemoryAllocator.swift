import CMimalloc

#if canImport(Glibc)
import Glibc
#endif

/// Which allocator serves the process's `malloc`. The executable links mimalloc (Package.swift, `CMimalloc`) ahead of
/// libc, so that its `malloc` and `free` serve every library of the process: the Swift runtime, OpenSSL, libpq and
/// libuv (docs/operations.md, "Memory allocator"). Should the dynamic linker find glibc's `malloc` first (libc or
/// another allocator preloaded), mimalloc is loaded but allocates nothing; `tessera serve` logs which once it serves.
enum MemoryAllocator {
    /// "mimalloc 2.0.9" when mimalloc answers `malloc`, else nil: a block from `malloc` lies in mimalloc's heap only
    /// when mimalloc made it.
    static var mimalloc: String? {
        guard let block = malloc(16) else { return nil }
        defer { free(block) }
        guard mi_is_in_heap_region(block) else { return nil }
        let version = Int(mi_version())
        return "mimalloc \(version / 100).\(version / 10 % 10).\(version % 10)"
    }
}
