// Package bridgetest is the test harness the packages under bridge share:
// loggers, free loopback ports, patient waits, DemoApp under a JDWP agent,
// a raw debugger. It imports nothing of bridge itself, so the monitor's
// own (internal) tests use it as the multiplexer's and the control API's
// do; what needs the monitor's types stays in each package's tests.
//
// It owns nothing production code uses and must not be imported by it (a
// harness: internal/layering refuses it).
package bridgetest
