package dap

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/linkproxy"
	godap "github.com/google/go-dap"
)

// A step over asked at once after a Java stop (no stackTrace first) lets
// the thread go in the first round trip of its action: nothing is read
// before the resume (its top frame is read in the same burst), although
// the session knows Kotlin, whose suspend functions need the top frame
// before the resume (TestKotlinStepOverSuspension: there it is read). The
// link's trace of the action gives each command's depth in the chain of
// round trips.
func TestJavaStepReadsNothingBeforeTheResume(t *testing.T) {
	vm := startLoop(t)
	p, err := linkproxy.Start(net.JoinHostPort("127.0.0.1", strconv.Itoa(vm.Port)), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	host, port, _ := net.SplitHostPort(p.Addr())
	portN, _ := strconv.Atoi(port)
	c := startSession(t, Config{})
	c.initialize()
	c.attach(map[string]any{"hostName": host, "port": portN, "sourcePaths": []string{source(t, "")}})
	c.setBreakpointsRunning(source(t, "Loop.java"), bp(t, "Loop.java", "tick"))
	th := c.configurationDoneAndStop("breakpoint", nil).Body.ThreadId
	c.setBreakpoints(source(t, "Loop.java"))
	// The stop reads its class's SourceFile in the background (is it Kotlin?):
	// the step is asked once that traffic is over, as a user's would be.
	idle, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := p.WaitIdle(idle, 250*time.Millisecond); err != nil {
		t.Fatalf("the link never went quiet after the stop: %v", err)
	}
	p.Mark()
	c.send("next", map[string]any{"threadId": th})
	until[*godap.StoppedEvent](c, "the step's stop", nil)
	depth := -1
	for _, s := range p.Trace() {
		if s.Cmd == jdwp.CmdThreadResume || s.Cmd == jdwp.CmdVMResume {
			depth = s.Depth
			break
		}
	}
	if depth != 1 {
		t.Errorf("the step's resume went out at depth %d of its action's round trips, want 1 (nothing read before it): %v", depth, p.Trace())
	}
	c.send("disconnect", nil)
	expect[*godap.DisconnectResponse](c)
}
