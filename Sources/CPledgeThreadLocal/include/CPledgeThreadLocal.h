// One thread-local pointer for Pledge's per-thread run state.
//
// Swift has no thread-local variables of its own; `pthread_getspecific` costs a library call and
// a lazily initialised key on every access, and Pledge reads this pointer each time a handler is
// attached or a promise resolved. A C `__thread` variable in the initial-exec model is one load.

#ifndef C_PLEDGE_THREAD_LOCAL_H
#define C_PLEDGE_THREAD_LOCAL_H

/// The calling thread's run state (a `ThreadRunState *`), or NULL before its first use and after
/// the thread's exit handler has freed it. Read and written only by its own thread.
extern __thread void *_Nullable pledge_thread_run_state __attribute__((tls_model("initial-exec")));

/// The calling thread's run state, or NULL.
static inline __attribute__((always_inline)) void *_Nullable pledge_get_thread_run_state(void) {
    return pledge_thread_run_state;
}

/// Sets the calling thread's run state.
static inline __attribute__((always_inline)) void pledge_set_thread_run_state(void *_Nullable state) {
    pledge_thread_run_state = state;
}

/// From the Swift runtime's stable ABI (it backs weak references): takes a strong count on
/// `object` and returns it, unless the object is being freed (then NULL). Its memory must still
/// be allocated; Pledge calls it only under a lock that guarantees so (see `ChainedBox.upstreamLink`).
extern void *_Nullable swift_tryRetain(void *_Nonnull object);

/// Whether `swift_tryRetain` took a strong count on `object`.
static inline __attribute__((always_inline)) _Bool pledge_try_retain(void *_Nonnull object) {
    return swift_tryRetain(object) != 0;
}

#endif
