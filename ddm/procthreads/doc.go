// Package procthreads reads the native threads of a local JVM process from
// /proc and matches them to the JVM's threads by name: their Linux thread ids
// and CPU times, the per-thread figures an Android VM's THST carries, for a
// HotSpot JVM that JDWP alone cannot give them for. Linux only; elsewhere
// Read finds nothing and every thread stays unmatched. It reads /proc and
// nothing else: no JDWP, no DDM, no sockets.
package procthreads
