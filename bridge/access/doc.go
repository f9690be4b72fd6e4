// Package access says who may reach the monitor's listeners and where they
// are: the control addresses ("unix:PATH", "tcp:HOST:PORT"; the per-user
// default socket in a runtime directory only this user may enter), unix
// sockets created private (0600 from the start), and listeners that refuse
// other local users' connections (Listen, Guard: the control API, the DAP
// listener, every JDWP port of the monitor) and ride out temporary accept
// errors. It finds the user behind a connection (PeerUID for loopback TCP
// from the kernel's socket table, which jdwp/hostproc reads; UnixPeerUID
// from a unix socket's credentials) and behind a listening socket
// (ListenerUID: whose VM the scanner found).
//
// It owns those checks, so that the monitor, the control API and cmd's DAP
// listener make them alike. It must not touch what is served on a
// connection (JDWP, JSON-RPC, DAP): it hands connections on, never reads
// them.
package access
