#include "CPledgeThreadLocal.h"

#include <pthread.h>

__thread void *_Nullable pledge_thread_run_state __attribute__((tls_model("initial-exec"))) = 0;
__thread unsigned long long pledge_thread_tag __attribute__((tls_model("initial-exec"))) = 0;
__thread long pledge_thread_depth __attribute__((tls_model("initial-exec"))) = 0;
__thread long pledge_thread_waiting __attribute__((tls_model("initial-exec"))) = 0;
__thread long pledge_thread_releasing __attribute__((tls_model("initial-exec"))) = 0;
__thread long pledge_thread_cancel_loops __attribute__((tls_model("initial-exec"))) = 0;
__thread long pledge_thread_cancelled_inputs __attribute__((tls_model("initial-exec"))) = 0;

static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

// Runs as the thread exits. Pledge code that a later exit handler runs installs a new state,
// which the next round of exit handlers releases.
static void release_at_exit(void *state) {
    pledge_thread_run_state = 0;
    pledge_release_thread_run_state(state);
}

static void make_exit_key(void) {
    pthread_key_create(&exit_key, release_at_exit);
}

void pledge_install_thread_run_state(void *_Nonnull state) {
    pthread_once(&exit_key_once, make_exit_key);
    pthread_setspecific(exit_key, state);
    pledge_thread_run_state = state;
}
