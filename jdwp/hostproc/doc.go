// Package hostproc holds what the monitor learns about local processes from
// the host rather than from a protocol: the kernel's TCP socket tables, the
// one reader of /proc/net/tcp{,6} (Sockets; SocketBetween: who holds the
// socket from one address to another), the process at the other end of a
// loopback connection and what its java command line runs (Peer), whether
// that process is one a launcher started, as its user (CheckLaunched: the
// launch listener's gate), and a local
// JVM's native threads — Linux thread ids and CPU times, the per-thread
// figures an Android VM's THST carries — matched to the JVM's threads by name
// (Read, Match). Linux only; elsewhere nothing is found and every thread stays
// unmatched.
//
// It owns reading /proc and must not touch anything else: no JDWP, no DDM,
// no sockets of its own.
// It lives beside jdwp/localjvm (local JVMs found from the host) rather than
// in bridge because ddm/simvm and jdwp/localjvm use it too (bridge/access
// asks it who is behind a connection or a listener), and a package may
// import only from its own layer or below (see README's layout); it imports
// nothing of the project.
package hostproc
