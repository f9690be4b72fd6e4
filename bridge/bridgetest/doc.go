// Package bridgetest is the test harness the packages under bridge share:
// loggers (and one keeping its lines), free loopback ports, patient waits,
// DemoApp under a JDWP agent, a raw debugger, a monitor run for a test's
// lifetime and waits on what it lists (Started, WaitListed: generic over
// the monitor's types). It imports nothing of bridge itself, so the
// monitor's own (internal) tests use it as the multiplexer's and the
// control API's do; each package's tests keep a typed line over it.
//
// It owns nothing production code uses and must not be imported by it (a
// harness: internal/layering refuses it).
package bridgetest
