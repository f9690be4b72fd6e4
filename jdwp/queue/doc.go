// Package queue holds the two unbounded queues the project uses where a
// producer must never block: Queue, a channel without a capacity (the JDWP
// reader hands event sets to subscribers through it, the monitor its VM and
// device events), and Lanes, which runs values in order per key, one goroutine
// per busy key (a debugger handles each thread's event sets in order while
// other threads go on).
//
// It owns the two queues. It knows nothing of JDWP or of what it carries,
// and must not: it is a
// building block, under jdwp only so that jdwp, bridge and dap share one copy.
// Memory is bounded by the consumers keeping up; callers that cannot trust
// theirs bound the producer side themselves.
package queue
