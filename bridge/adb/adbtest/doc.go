// Package adbtest runs the real adb server on a private port for tests, and
// connects simulated devices to it. It never touches the default server on
// 5037: every server it starts is stopped in the test's cleanup (adb -P PORT
// kill-server, bounded in time, then SIGKILL by pid).
//
// What it owns: the adb servers it starts and their cleanup. What it must
// not touch: the user's adb server; and no production package imports it
// (a harness, internal/layering).
package adbtest
