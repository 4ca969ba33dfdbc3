// Pledge's thread-local values: the per-thread run state, the thread's tag, and the counters of its runs.
//
// Swift has no thread-local variables of its own; `pthread_getspecific` costs a library call and
// a lazily initialised key on every access, and Pledge reads this pointer each time a promise is
// resolved. A C `__thread` variable in the initial-exec model is one load.

#ifndef C_PLEDGE_THREAD_LOCAL_H
#define C_PLEDGE_THREAD_LOCAL_H

/// The calling thread's run state (a retained `ThreadRun`), or NULL before its first use and
/// after the thread's exit handler has released it. Read and written only by its own thread.
extern __thread void *_Nullable pledge_thread_run_state __attribute__((tls_model("initial-exec")));

/// The calling thread's run state, or NULL.
static inline __attribute__((always_inline)) void *_Nullable pledge_get_thread_run_state(void) {
    return pledge_thread_run_state;
}

/// Makes `state` the calling thread's run state, and arranges for
/// `pledge_release_thread_run_state` (defined in Swift) to release it when the thread exits.
void pledge_install_thread_run_state(void *_Nonnull state);

/// Releases a run state installed by `pledge_install_thread_run_state`; defined in Swift.
extern void pledge_release_thread_run_state(void *_Nonnull state);

/// The calling thread's tag (see `ThreadRun.tag`), or 0 before its first use. Unlike the run
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

/// How many runs are active on the calling thread, one inside another (see `ThreadRun`).
extern __thread long pledge_thread_depth __attribute__((tls_model("initial-exec")));

static inline __attribute__((always_inline)) long pledge_get_thread_depth(void) {
    return pledge_thread_depth;
}

static inline __attribute__((always_inline)) void pledge_set_thread_depth(long depth) {
    pledge_thread_depth = depth;
}

/// How many items wait in the calling thread's `ThreadState.deferred` list, so that the run loop
/// looks at it only when some do.
extern __thread long pledge_thread_waiting __attribute__((tls_model("initial-exec")));

static inline __attribute__((always_inline)) long pledge_get_thread_waiting(void) {
    return pledge_thread_waiting;
}

static inline __attribute__((always_inline)) void pledge_set_thread_waiting(long waiting) {
    pledge_thread_waiting = waiting;
}

/// Whether the calling thread is releasing, and has parked objects (see `ThreadRun.release`), how many
/// cancel loops run on it, and how many inputs of cancelled fan-ins wait in its
/// `ThreadState.cancelledInputs` (see `cancelChain`).
extern __thread long pledge_thread_releasing __attribute__((tls_model("initial-exec")));
extern __thread long pledge_thread_cancel_loops __attribute__((tls_model("initial-exec")));
extern __thread long pledge_thread_cancelled_inputs __attribute__((tls_model("initial-exec")));

static inline __attribute__((always_inline)) long pledge_get_thread_releasing(void) {
    return pledge_thread_releasing;
}

static inline __attribute__((always_inline)) void pledge_set_thread_releasing(long releasing) {
    pledge_thread_releasing = releasing;
}

static inline __attribute__((always_inline)) long pledge_get_thread_cancel_loops(void) {
    return pledge_thread_cancel_loops;
}

static inline __attribute__((always_inline)) void pledge_set_thread_cancel_loops(long loops) {
    pledge_thread_cancel_loops = loops;
}

static inline __attribute__((always_inline)) long pledge_get_thread_cancelled_inputs(void) {
    return pledge_thread_cancelled_inputs;
}

static inline __attribute__((always_inline)) void pledge_set_thread_cancelled_inputs(long inputs) {
    pledge_thread_cancelled_inputs = inputs;
}

#endif
