import Testing

/// The time operators: `Backoff`, `timeout`, `delay` and `retry`. Their suites nest here, so
/// that `swift test --filter Time` runs them all (the ones that capture the log nest in the
/// serialized ``ConfigurationTests`` instead, as `TimeLogTests`).
///
/// Timers are the subject, so these tests use short real delays; they only ever assert lower
/// bounds on elapsed time ("never early"), which hold on any machine, and wait for outcomes with
/// semaphores and the generous test timeout.
@Suite struct TimeTests {}
