// Package rpc is the monitor's control API: [Server] serves JSON-RPC 2.0
// language-server style (Content-Length framing) on stdio, a per-user unix
// socket (mode 0600) or loopback TCP (addresses and listeners: package
// bridge/access); docs/rpc.md lists the methods and notifications, which
// the VS Code extension and the CLI speak. [Client] is its Go client
// (cmd/ddmbridge's commands). Heap dumps travel as files written for the
// same user, chunks read from a private file, or a raw stream on a second
// connection (dump.go, rawdump.go); .hprof files are analysed on request
// (hprof.go); an app's log is followed as notifications (logcat.go).
//
// It owns the protocol: method names, parameters, results, error codes,
// notifications, per-connection bounds (requests in flight, message size,
// open dump streams). It reaches the monitor only through [Monitor], which
// *bridge.Monitor implements, and a VM through the exported methods of
// *bridge.VM: it must not touch the monitor's internals, a VM's
// connection, or the wire formats (jdwp, ddm) beyond their JSON views.
//
// Logging: component "bridge"; trace kind "rpc.msg" (every message, with
// ServerOptions.TraceMessages).
package rpc
