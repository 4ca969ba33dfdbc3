// Pledge's two thread-local values: the per-thread run state, and the thread's tag.
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

/// The calling thread's tag (see `ThreadState.tag`), or 0 before its first use. Unlike the run
/// state it outlives the thread's exit handlers, so that Pledge code an exit handler runs after
/// Pledge's own keeps the thread's tag, and with it the order of the thread's handlers.
extern __thread unsigned long long pledge_thread_tag __attribute__((tls_model("initial-exec")));

/// The calling thread's tag, or 0.
static inline __attribute__((always_inline)) unsigned long long pledge_get_thread_tag(void) {
    return pledge_thread_tag;
}

/// Sets the calling thread's tag.
static inline __attribute__((always_inline)) void pledge_set_thread_tag(unsigned long long tag) {
    pledge_thread_tag = tag;
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
