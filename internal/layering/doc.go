// Package layering states the module's import rule as data, and its test
// holds every package of the module to it (go list -json ./..., and the
// non-test files of the packages the wire rule covers).
//
// Layers, bottom up: jdwp/queue (a leaf the JDWP client builds on); jdwp,
// the wire; the jdwp/* facts below the mirror (javalang, classfile,
// hostproc, localjvm, bench, and the runners jvmrun and jvmtest); the mirror
// (jdwp/mirror); the language floors (jdwp/lang and each language under it,
// jdwp/srclookup); the debugger layer and evaluation over the mirror
// (jdwp/debugger, jdwp/eval); ddm; ddm/*; internal/*; then dap/... and
// bridge/... as siblings; then cmd/... A package imports only from its own
// layer or below, and neither of the siblings imports the other. Within
// bridge, floors likewise: bridge/adb/..., bridge/access, bridge/demoapp
// and the harness bridge/bridgetest; the JDWP multiplexer (bridge/mux,
// which knows no monitor); the monitor (bridge); the control API
// (bridge/rpc). A jdwp/* package the rule does not name is in no layer,
// and fails until it is given one.
//
// Production code imports no simulator or sample VM (jdwp/jvmrun,
// ddm/simvm, bridge/adb/simdevice, bridge/demoapp: only cmd, whose commands
// run them, and tests do) and no test harness (jdwp/jvmtest,
// jdwp/jdwptest, bridge/adb/adbtest, bridge/bridgetest, internal/lockedbuf:
// only tests and other harnesses do).
//
// The wire rule: dap/... and jdwp/eval reach the VM through the mirror and
// the debugger layer. Of package jdwp they name only ids, values, tags,
// modifier bits and error codes (WireAllowed, by name), and no selector of
// theirs is named Conn.
//
// The seam rule: outside jdwp/lang, code reaches a source language through
// the seam (jdwp/lang) and the list of languages (jdwp/lang/langs), not a
// language's floor, but for the few packages every language shares
// (SeamAllowed, by name: the JVM's values, the lambda compiler, the
// outline of a class without source).
//
// Tests may reach up for an integration test (bridge's tests drive dap's
// server; ddm/hprof's benchmark takes a dump through internal/hotspot), but
// nothing below the siblings imports dap, bridge or cmd, not even in a
// test.
//
// What it owns: the rule. What it must not touch: everything else; it
// imports nothing of the project.
package layering
