// expected-error: missing argument for parameter 'queue'
import Pledge

// InvalidatableQueue has no default queue: PromiseKit's, the main queue, never runs in a server or
// a command-line tool, so the queue is always named.
let queue = InvalidatableQueue()
