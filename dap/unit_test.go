package dap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

func TestJDWPAddressFromArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"java", "-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=5005", "Main"}, "127.0.0.1:5005"},
		{[]string{"java", "-agentlib:jdwp=transport=dt_socket,server=y,address=*:8000"}, "127.0.0.1:8000"},
		{[]string{"java", "-Xrunjdwp:transport=dt_socket,server=y,address=10.0.0.2:9000"}, "10.0.0.2:9000"},
		{[]string{"java", "Main"}, "has no JDWP agent"},
		{[]string{"java", "-agentlib:jdwp=transport=dt_socket,server=n,address=5005"}, "server=n"},
		{[]string{"java", "-agentlib:jdwp=transport=dt_socket,server=y"}, "no fixed address"},
		{[]string{"java", "-agentlib:jdwp=transport=dt_socket,server=y,address=0"}, "no usable port"},
	} {
		got, err := jdwpAddressFromArgs(42, tc.args)
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.args, got, tc.want)
		}
	}
	if _, err := processJDWPAddress(1 << 30); err == nil || !strings.Contains(err.Error(), "no such process") {
		t.Errorf("missing process: %v", err)
	}
}

func TestWithdrawn(t *testing.T) {
	if w := withdrawn(jdwp.Capabilities{}); len(w) != len(vmNeeds) || w["supportsRestartFrame"] || w["supportsHotCodeReplace"] {
		t.Errorf("withdrawn from a VM that can do nothing: %v", w)
	}
	all := jdwp.Capabilities{CanPopFrames: true, CanWatchFieldAccess: true, CanGetBytecodes: true, CanGetConstantPool: true, CanRedefineClasses: true}
	if w := withdrawn(all); len(w) != 0 {
		t.Errorf("withdrawn from a capable VM: %v", w)
	}
	b, _ := json.Marshal(capabilitiesEvent{Event: newEvent("capabilities"), Body: capabilitiesBody{Capabilities: withdrawn(jdwp.Capabilities{})}})
	if !strings.Contains(string(b), `"supportsRestartFrame":false`) {
		t.Errorf("capabilities event %s does not carry the explicit false", b)
	}
	d := &debuggee{caps: jdwp.Capabilities{}}
	if err := d.cannot("supportsRestartFrame"); err == nil || err.Error() != "this VM cannot pop frames (CanPopFrames is false)" {
		t.Errorf("cannot: %v", err)
	}
}

func TestFrameClassName(t *testing.T) {
	for sig, want := range map[string]struct {
		name   string
		hidden bool
	}{
		"Lcom/example/Orders;":                               {"Orders", false},
		"Lcom/example/Orders$Worker;":                        {"Orders$Worker", false},
		"Lcom/example/Orders$$Lambda$14.0x0000000800c03000;": {"Orders$$Lambda$14", true},
		"LOrders$$Lambda$14/0x00007f5460007600;":             {"Orders$$Lambda$14", true},
	} {
		if name, hidden := frameClassName(sig); name != want.name || hidden != want.hidden {
			t.Errorf("frameClassName(%q) = %q, %v; want %q, %v", sig, name, hidden, want.name, want.hidden)
		}
	}
}

// timeoutBackend's dials fail as a dial does when its deadline passes a
// moment before its context says so.
type timeoutBackend struct{ DirectBackend }

func (timeoutBackend) OpenDebugger(ctx context.Context, target string) (net.Conn, error) {
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}
}

func TestDialTimeoutSaysHowToStartTheVM(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()
	// A port that accepts but never answers in time, and a closed one
	// whose refusal came too late to be seen.
	for addr, want := range map[string]string{ln.Addr().String(): "no answer before the timeout", closedAddr: "nothing is listening at " + closedAddr} {
		_, err := openWithRetry(context.Background(), timeoutBackend{}, addr, true)
		if err == nil || !strings.Contains(err.Error(), "-agentlib:jdwp") || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), want) {
			t.Errorf("a dial of %s that timed out: %v; want %q, the address and how to start the VM", addr, err, want)
		}
	}
}

// TestQuietErrors: a request the VM does not implement (a simulated or
// minimal VM) is answered in words and raised as no toast; so is a refused
// hot code replace; other errors keep their words and are shown.
func TestQuietErrors(t *testing.T) {
	ni := fmt.Errorf("StackFrame.Frames: %w", jdwp.ErrNotImplemented)
	if msg, quiet := quietError("stackTrace", ni); !quiet || !strings.Contains(msg, "this VM does not support stackTrace") {
		t.Errorf("NOT_IMPLEMENTED: %q quiet=%v", msg, quiet)
	}
	if _, quiet := quietError("redefineClasses", errors.New("refused")); !quiet {
		t.Error("a refused hot code replace is raised as a toast")
	}
	if msg, quiet := quietError("stackTrace", errors.New("boom")); quiet || msg != "boom" {
		t.Errorf("another error: %q quiet=%v", msg, quiet)
	}
}
