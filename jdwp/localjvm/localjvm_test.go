package localjvm

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
)

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
	ps, err := List()
	if err != nil {
		t.Fatal(err)
	}
	var found *Process
	for i, p := range ps {
		if p.Main == "Sleeper" && p.Address != "" && strings.HasSuffix(p.Address, ":"+portOf(vm.Addr)) {
			found = &ps[i]
		}
	}
	if found == nil {
		t.Fatalf("the JVM at %s is not listed: %+v", vm.Addr, ps)
	}
	if p, err := Get(found.PID); err != nil || p.Address != found.Address {
		t.Errorf("Get(%d) = %+v, %v", found.PID, p, err)
	}
	if _, err := Get(os.Getpid()); err == nil || !strings.Contains(err.Error(), "no JDWP agent") {
		t.Errorf("Get(the test binary) = %v, want no JDWP agent", err)
	}
	if p, err := AgentAt(vm.Addr); err != nil || p.PID != found.PID {
		t.Errorf("AgentAt(%s) = %+v, %v; want process %d", vm.Addr, p, err, found.PID)
	}
	for addr, says := range map[string]string{
		"192.0.2.1:" + portOf(vm.Addr): "not on this machine", // TEST-NET-1: never this machine's
		"127.0.0.1:1":                  "no local JVM of this user has its JDWP agent at port 1",
		"no-port":                      "not a HOST:PORT address",
	} {
		if _, err := AgentAt(addr); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("AgentAt(%s) = %v, want %q", addr, err, says)
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
	err = WaitRefused(ctx, vm.Addr)
	if err == nil {
		t.Fatal("the VM with a debugger still accepts connections")
	}
	if why := Explain(vm.Addr, err); !errors.Is(why, ErrHasDebugger) || !strings.Contains(why.Error(), "Sleeper") {
		t.Errorf("explain the second debugger: %v", why)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	free := ln.Addr().String()
	ln.Close()
	_, err = d.DialContext(ctx, "tcp", free)
	if why := Explain(free, err); !errors.Is(why, ErrNothingListening) || !strings.Contains(why.Error(), "-agentlib:jdwp") {
		t.Errorf("explain nothing listening: %v", why)
	}
	if why := Explain(free, syscall.ETIMEDOUT); !errors.Is(why, syscall.ETIMEDOUT) {
		t.Errorf("other errors pass through: %v", why)
	}
}

func TestAgentAddress(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
		err  string
	}{
		{[]string{"java", "-agentlib:jdwp=transport=dt_socket,server=y,address=*:5005", "App"}, "127.0.0.1:5005", ""},
		{[]string{"java", "-Xrunjdwp:transport=dt_socket,server=y,address=10.0.0.2:8000"}, "10.0.0.2:8000", ""},
		{[]string{"java", "App"}, "", "no JDWP agent"},
		{[]string{"java", "-agentlib:jdwp=transport=dt_socket,server=n,address=5005"}, "", "server=n"},
		{[]string{"java", "-agentlib:jdwp=transport=dt_socket,server=y,address=0"}, "", "no usable port"},
	} {
		got, err := AgentAddress(1, tc.args)
		if got != tc.want || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%v: %q, %v; want %q, %q", tc.args, got, err, tc.want, tc.err)
		}
	}
	if m := mainOf([]string{"java", "-cp", "a:b", "-Dx=y", "com.x.Main", "arg"}); m != "com.x.Main" {
		t.Errorf("main %q", m)
	}
	if m := mainOf([]string{"java", "-jar", "app.jar"}); m != "app.jar" {
		t.Errorf("main of -jar %q", m)
	}
}
