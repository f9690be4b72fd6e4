// Package linkproxy is a JDWP link with a delay, for measuring what a
// debugger costs over a slow link (adb over USB or Wi-Fi, a device farm):
// a loopback proxy between a debugger and a VM that holds every packet for a
// fixed time each way and counts, per user action, the commands sent and
// the longest chain of sequential round trips among them — the number a
// person waits for, whatever the link's latency.
//
// It owns only the relay and its counts. It knows the JDWP framing (package
// jdwp) and must not learn what the commands mean, nor DAP or the monitor;
// production code never routes a debugger through it:
// `ddmbridge bench link` and the tests that hold the round-trip counts of a
// step, an attach or an evaluation sit on it.
package linkproxy
