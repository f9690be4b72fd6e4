package dap

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	godap "github.com/google/go-dap"
	"github.com/rs/zerolog"

	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// raceAttempts is how many connections the other user makes to the launch
// listener before the launched JVM may connect (and it goes on meanwhile).
const raceAttempts = 3000

// syncBuffer is a log sink tests read while sessions write.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// raceLaunchListener starts, as uid 65534, a shell that connects to
// 127.0.0.1:port again and again, offers the JDWP handshake each time and
// prints "WON" whenever the other end answers it (the adapter took it for
// its JVM), and "N" after every 500 attempts. It is killed when the test
// ends, after ten minutes at most.
func raceLaunchListener(t *testing.T, port int) (lines <-chan string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	script := fmt.Sprintf(`n=0
while :; do
  if exec 3<>/dev/tcp/127.0.0.1/%d 2>/dev/null; then
    printf 'JDWP-Handshake' >&3 2>/dev/null
    if IFS= read -r -t 5 -N 14 got <&3 2>/dev/null && [ "$got" = JDWP-Handshake ]; then echo WON; fi
    exec 3<&- 3>&-
  fi
  n=$((n+1))
  [ $((n %% 500)) = 0 ] && echo $n
done`, port)
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}, Setpgid: true}
	cmd.Dir = "/"
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start the other user's client: %v", err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cancel()
		cmd.Wait()
	})
	ch := make(chan string, 1024)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case ch <- sc.Text():
			default: // the test stopped reading: the count is enough
			}
		}
	}()
	return ch
}

// TestLaunchListenerRefusesOtherUsers: another local user (uid 65534)
// hammers the launch listener from the moment it listens — thousands of
// connections before the launched JVM connects, and more while it does
// (issue 42: the first connection became the session's debuggee and the
// real JVM, suspended, went to the attacker). Every one is refused with a
// log line, none gets the handshake, and the session debugs its own JVM:
// the launched process, running as this user.
func TestLaunchListenerRefusesOtherUsers(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a client as another user")
	}
	jvmtest.RequireJava(t)
	java, err := jvmtest.FindTool("java")
	if err != nil {
		t.Fatal(err)
	}
	// javaExec is a wrapper that says the listener's port and its pid, then
	// waits for the race to have run before it becomes java (exec: same pid).
	dir := t.TempDir()
	wrapper := filepath.Join(dir, "java")
	script := fmt.Sprintf(`#!/bin/sh
for a in "$@"; do case "$a" in -agentlib:jdwp=*) addr=${a##*address=};; esac; done
echo "$$ ${addr##*:}" > %[1]s/port.tmp && mv %[1]s/port.tmp %[1]s/port
i=0
while [ ! -e %[1]s/go ] && [ $i -lt 6000 ]; do sleep 0.05; i=$((i+1)); done
exec %[2]s "$@"
`, dir, java)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	c := startSession(t, Config{Logger: zerolog.New(logs)})
	c.initialize()

	type raced struct {
		pid, attempts int
		won           bool
		err           error
		lines         <-chan string
	}
	done := make(chan raced, 1)
	go func() {
		var r raced
		defer func() { done <- r }()
		deadline := time.Now().Add(3 * time.Minute)
		var b []byte
		for {
			if b, r.err = os.ReadFile(filepath.Join(dir, "port")); r.err == nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if r.err != nil {
			r.err = fmt.Errorf("the wrapper never said the listener's port: %w", r.err)
			return
		}
		f := strings.Fields(string(b))
		if len(f) != 2 {
			r.err = fmt.Errorf("wrapper said %q", b)
			return
		}
		r.pid, _ = strconv.Atoi(f[0])
		port, _ := strconv.Atoi(f[1])
		r.lines = raceLaunchListener(t, port)
		for r.attempts < raceAttempts {
			l, ok := <-r.lines
			if !ok {
				r.err = fmt.Errorf("the other user's client ended after %d attempts", r.attempts)
				return
			}
			if l == "WON" {
				r.won = true
				break
			}
			r.attempts, _ = strconv.Atoi(l)
		}
		r.err = os.WriteFile(filepath.Join(dir, "go"), nil, 0o644)
	}()

	c.launch(launchArgs(t, "Basic", "stopOnEntry", true, "javaExec", wrapper, "timeout", 300000))
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	c.configurationDone()
	stop := c.expectStop("entry")
	frames := c.stackTrace(stop.Body.ThreadId)
	user := c.evaluate(frames[0].Id, `System.getProperty("user.name")`).Result
	pid := c.evaluate(frames[0].Id, `ProcessHandle.current().pid()`).Result
	// The race goes on while the session runs: read what it said so far.
	for more := true; more; {
		select {
		case l, ok := <-r.lines:
			if !ok {
				more = false
			} else if l == "WON" {
				r.won = true
			} else if n, err := strconv.Atoi(l); err == nil {
				r.attempts = n
			}
		default:
			more = false
		}
	}
	t.Logf("the other user made %d+ connection attempts to the launch listener", r.attempts)
	if r.won {
		t.Fatal("the adapter answered the JDWP handshake of another user's connection to its launch listener")
	}
	if user != `"root"` || pid != strconv.Itoa(r.pid) && pid != strconv.Itoa(r.pid)+"L" {
		t.Fatalf("the session debugs user.name %s pid %s, want root's launched JVM (pid %d)", user, pid, r.pid)
	}
	if !strings.Contains(logs.String(), "refused a connection to the launch listener") || !strings.Contains(logs.String(), "uid 65534") {
		t.Fatalf("no refusal of uid 65534 logged; logs:\n%.2000s", logs.String())
	}
	c.send("continue", map[string]any{"threadId": stop.Body.ThreadId})
	expect[*godap.ContinueResponse](c)
	c.expectEnd(0)
}
