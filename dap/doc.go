// Package dap is ddmbridge's Debug Adapter Protocol server, built on go-dap.
//
// It translates DAP requests from an editor into calls on a jdwp connection
// and turns JDWP events and DDM model changes into DAP events. It owns no
// sockets to VMs: connections come from the bridge (or a direct jdwp.Dial for
// a stand-alone session).
package dap
