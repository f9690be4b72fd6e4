// Package framing reads Content-Length framed messages, the framing DAP and
// the JSON-RPC control API share (as the Language Server Protocol's), with
// every part bounded: header lines, header count and body size. It knows no
// message contents and owns no connection.
package framing
