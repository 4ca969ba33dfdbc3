#include <stdlib.h>

#include "CPledgeTestSetup.h"

// Before main, so before any test can log. Not in the child process of an exit test (Swift
// Testing names it in SWT_EXIT_TEST_ID): there Pledge keeps its initial handler, whose output
// the parent test captures and checks.
__attribute__((constructor)) static void pledge_tests_setup(void) {
    if (getenv("SWT_EXIT_TEST_ID") == NULL) {
        pledge_tests_quiet_logs();
    }
}
