# cython: language_level=3
"""Large zero-filled arrays that are accessed at random (node arenas,
transposition tables): anonymous mappings with transparent huge pages asked
for on Linux, so an access costs a cache miss instead of a miss plus a
page-table walk, and a 100 MB arena faults in 2 MB at a time instead of 4 kB.
Elsewhere, plain ``calloc``.  Free with ``big_free`` and the same size.
``big_zero`` zeroes such an array by handing its pages back to the kernel
(zero pages again on the next touch; elsewhere a ``memset``): it costs the
pages that were in use, not the array's size, and frees their memory."""

cdef extern from *:
    """
    #include <stdlib.h>
    #include <string.h>
    #if defined(__linux__)
    #include <sys/mman.h>
    static void* big_alloc(size_t bytes) {
        void* p;
        if (bytes == 0) bytes = 1;
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return NULL;
    #ifdef MADV_HUGEPAGE
        madvise(p, bytes, MADV_HUGEPAGE);
    #endif
        return p;   /* anonymous pages are zero-filled */
    }
    static void big_free(void* p, size_t bytes) {
        if (p) munmap(p, bytes == 0 ? 1 : bytes);
    }
    static inline void big_zero(void* p, size_t bytes) {
        if (p && bytes && madvise(p, bytes, MADV_DONTNEED) != 0) memset(p, 0, bytes);
    }
    #else
    static void* big_alloc(size_t bytes) { return calloc(1, bytes ? bytes : 1); }
    static void big_free(void* p, size_t bytes) { (void)bytes; free(p); }
    static inline void big_zero(void* p, size_t bytes) { if (p) memset(p, 0, bytes); }
    #endif
    """
    void* big_alloc(size_t bytes) nogil
    void big_free(void* p, size_t bytes) nogil
    void big_zero(void* p, size_t bytes) nogil
