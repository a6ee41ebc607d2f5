# cython: language_level=3
"""A spin lock for critical sections of a microsecond or two, taken without the GIL.

Threads searching one tree hold its lock only for a selection or a back-up.  A
sleeping lock (``PyThread`` / futex) puts a waiting thread to sleep, and waking
it costs more than the section it waited for; spinning costs nothing while the
holder runs on the other core.  After a few thousand turns the waiter yields
its core, so a holder descheduled on a busy machine still gets to finish.
"""

cdef extern from *:
    """
    #include <sched.h>
    #if defined(__x86_64__) || defined(__i386__)
    #define TTT_SPIN_PAUSE() __builtin_ia32_pause()
    #elif defined(__aarch64__)
    #define TTT_SPIN_PAUSE() __asm__ __volatile__("yield")
    #else
    #define TTT_SPIN_PAUSE() ((void)0)
    #endif
    static inline void ttt_spin_lock(int *lock) {
        unsigned turns = 0;
        while (__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE)) {
            while (__atomic_load_n(lock, __ATOMIC_RELAXED)) {
                TTT_SPIN_PAUSE();
                if (++turns >= 4096) {
                    turns = 0;
                    sched_yield();
                }
            }
        }
    }
    static inline void ttt_spin_unlock(int *lock) {
        __atomic_store_n(lock, 0, __ATOMIC_RELEASE);
    }
    static inline void ttt_spin_yield(void) { sched_yield(); }
    """
    void spin_lock "ttt_spin_lock"(int* lock) noexcept nogil
    void spin_unlock "ttt_spin_unlock"(int* lock) noexcept nogil
    # give the core to another thread: after releasing a lock that this
    # thread would take again at once (a waiter on the same core could
    # otherwise starve, never finding it free when it runs)
    void spin_yield "ttt_spin_yield"() noexcept nogil
