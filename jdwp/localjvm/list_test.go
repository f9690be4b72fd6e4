package localjvm_test

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	"github.com/ddmbridge/ddmbridge/jdwp/localjvm"
)

// An external test: jvmtest starts JVMs through jvmrun, which imports
// localjvm.

// TestListAndExplain finds a real JVM started with a JDWP agent among the
// local processes, with its address and main class, and tells a VM that
// already has a debugger from a port where nothing listens.
func TestListAndExplain(t *testing.T) {
	jvmtest.RequireJava(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir, err := jvmtest.CompileFiles(ctx, map[string][]byte{"Sleeper.java": []byte(`public class Sleeper { public static void main(String[] a) throws Exception { System.out.println("READY"); Thread.sleep(Long.MAX_VALUE); } }`)})
	if err != nil {
		t.Fatal(err)
	}
	vm := jvmtest.StartT(t, jvmtest.Options{ClassPath: []string{dir}, MainClass: "Sleeper", ReadyLine: "READY"})
	ps, err := localjvm.List()
	if err != nil {
		t.Fatal(err)
	}
	var found *localjvm.Process
	for i, p := range ps {
		if p.Main == "Sleeper" && p.Address != "" && strings.HasSuffix(p.Address, ":"+port(vm.Addr)) {
			found = &ps[i]
		}
	}
	if found == nil {
		t.Fatalf("the JVM at %s is not listed: %+v", vm.Addr, ps)
	}
	if p, err := localjvm.Get(found.PID); err != nil || p.Address != found.Address {
		t.Errorf("localjvm.Get(%d) = %+v, %v", found.PID, p, err)
	}
	if _, err := localjvm.Get(os.Getpid()); err == nil || !strings.Contains(err.Error(), "no JDWP agent") {
		t.Errorf("localjvm.Get(the test binary) = %v, want no JDWP agent", err)
	}
	if p, err := localjvm.AgentAt(vm.Addr); err != nil || p.PID != found.PID {
		t.Errorf("localjvm.AgentAt(%s) = %+v, %v; want process %d", vm.Addr, p, err, found.PID)
	}
	for addr, says := range map[string]string{
		"192.0.2.1:" + port(vm.Addr): "not on this machine", // TEST-NET-1: never this machine's
		"127.0.0.1:1":                "no local JVM of this user has its JDWP agent at port 1",
		"no-port":                    "not a HOST:PORT address",
	} {
		if _, err := localjvm.AgentAt(addr); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("localjvm.AgentAt(%s) = %v, want %q", addr, err, says)
		}
	}

	// A first debugger takes the VM; a second is refused, and told why.
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", vm.Addr)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := jdwp.Handshake(ctx, nc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// The agent stops listening once its debugger is attached; until it
	// has, a dial may still land in the listen backlog.
	err = localjvm.WaitRefused(ctx, vm.Addr)
	if err == nil {
		t.Fatal("the VM with a debugger still accepts connections")
	}
	if why := localjvm.Explain(vm.Addr, err); !errors.Is(why, localjvm.ErrHasDebugger) || !strings.Contains(why.Error(), "Sleeper") {
		t.Errorf("explain the second debugger: %v", why)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	free := ln.Addr().String()
	ln.Close()
	_, err = d.DialContext(ctx, "tcp", free)
	if why := localjvm.Explain(free, err); !errors.Is(why, localjvm.ErrNothingListening) || !strings.Contains(why.Error(), "-agentlib:jdwp") {
		t.Errorf("explain nothing listening: %v", why)
	}
	if why := localjvm.Explain(free, syscall.ETIMEDOUT); !errors.Is(why, syscall.ETIMEDOUT) {
		t.Errorf("other errors pass through: %v", why)
	}
}

func port(addr string) string {
	if _, p, err := net.SplitHostPort(addr); err == nil {
		return p
	}
	return addr
}
