// Runs before the test runner's main: installs a quiet log handler for the whole test process
// (see `quietLogsForTests` in Tests/PledgeTests/Support/LogCapture.swift), so that a passing
// `swift test` prints no `Pledge:` lines. Tests that check what is logged capture it.

#ifndef C_PLEDGE_TEST_SETUP_H
#define C_PLEDGE_TEST_SETUP_H

/// Defined in Swift by the test target.
void pledge_tests_quiet_logs(void);

#endif
