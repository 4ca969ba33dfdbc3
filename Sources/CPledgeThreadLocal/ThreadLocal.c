#include "CPledgeThreadLocal.h"

__thread void *_Nullable pledge_thread_run_state __attribute__((tls_model("initial-exec"))) = 0;
__thread unsigned long long pledge_thread_tag __attribute__((tls_model("initial-exec"))) = 0;
