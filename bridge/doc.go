// Package bridge is the monitor: it discovers VMs (workstation port ranges and
// adb devices), owns the single JDWP connection each VM accepts, keeps DDM
// flowing on it, re-exports it to debuggers on per-VM and current-VM ports with
// packet id remapping, and serves the JSON-RPC control API.
//
// It is the only package that knows several VMs exist. Wire formats belong to
// jdwp and ddm; editor concerns belong to dap.
package bridge
