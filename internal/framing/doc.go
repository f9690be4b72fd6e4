// Package framing reads Content-Length framed messages, the framing DAP and
// the JSON-RPC control API share (as the Language Server Protocol's), with
// every part bounded: header lines, header count and body size. It owns the
// framing and must not touch message contents or a connection. It lives in internal, below dap and
// bridge, because both use it (DAP's base protocol in dap, the monitor's
// JSON-RPC API in bridge) and neither may import the other; it imports
// nothing of the project.
package framing
