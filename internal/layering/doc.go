// Package layering states the module's import rule as data, and its test
// holds every package of the module to it (go list -json ./...).
//
// Layers, bottom up: jdwp/queue (a leaf the JDWP client builds on), jdwp,
// jdwp/*, ddm, ddm/*, internal/*, then dap/... and bridge/... as siblings,
// then cmd/... A package imports only from its own layer or below, and
// neither of the siblings imports the other. Tests may reach up for an
// integration test (bridge's tests drive dap's server; ddm/hprof's benchmark
// takes a dump through internal/hotspot), but nothing below the siblings
// imports dap, bridge or cmd, not even in a test.
//
// What it owns: the rule. What it must not touch: everything else; it
// imports nothing of the project.
package layering
