// Package framing reads Content-Length framed messages, the framing DAP and
// the JSON-RPC control API share (as the Language Server Protocol's), with
// every part bounded: header lines, header count and body size. It knows no
// message contents and owns no connection. It lives under dap, whose base
// protocol it is; the monitor's JSON-RPC API (bridge) imports it too, and it
// imports nothing of the project.
package framing
