package bridge

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/demoapp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// jdb drives a jdb process expect-style over its stdin and stdout.
type jdb struct {
	t     testing.TB
	cmd   *exec.Cmd
	stdin io.WriteCloser

	mu      sync.Mutex
	out     strings.Builder
	pos     int // what expect has consumed
	changed chan struct{}
	exited  chan struct{}
}

func startJDB(t testing.TB, addr string) *jdb {
	t.Helper()
	path, err := jvmtest.FindTool("jdb")
	if err != nil {
		t.Fatal(err)
	}
	j := &jdb{t: t, changed: make(chan struct{}), exited: make(chan struct{})}
	j.cmd = exec.Command(path, "-attach", addr)
	j.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	j.stdin, _ = j.cmd.StdinPipe()
	pr, pw := io.Pipe()
	j.cmd.Stdout, j.cmd.Stderr = pw, pw
	if err := j.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		j.cmd.Wait()
		pw.Close()
	}()
	go func() {
		defer close(j.exited)
		buf := make([]byte, 4096)
		for {
			n, err := pr.Read(buf)
			j.mu.Lock()
			j.out.Write(buf[:n])
			close(j.changed)
			j.changed = make(chan struct{})
			j.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(j.kill)
	return j
}

func (j *jdb) kill() {
	if j.cmd.Process != nil {
		syscall.Kill(-j.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// expect waits for re in the output not yet consumed and returns the output
// up to the end of the match. Like waitFor, it raises the timeout to a
// minute: a loaded machine only makes jdb slower.
func (j *jdb) expect(pattern string, timeout time.Duration) string {
	j.t.Helper()
	timeout = max(timeout, time.Minute)
	re := regexp.MustCompile(pattern)
	deadline := time.After(timeout)
	for {
		j.mu.Lock()
		s := j.out.String()[j.pos:]
		ch := j.changed
		if loc := re.FindStringIndex(s); loc != nil {
			j.pos += loc[1]
			j.mu.Unlock()
			return s[:loc[1]]
		}
		j.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			j.t.Fatalf("jdb: no %q within %v; unread output:\n%s", pattern, timeout, s)
		case <-j.exited:
			j.mu.Lock()
			s = j.out.String()[j.pos:]
			j.mu.Unlock()
			if !re.MatchString(s) {
				j.t.Fatalf("jdb exited without %q; unread output:\n%s", pattern, s)
			}
		}
	}
}

func (j *jdb) send(line string) {
	fmt.Fprintln(j.stdin, line)
}

// jdbPrompt matches jdb's prompts: "> " or "main[1] ".
const jdbPrompt = `(?:> |\w+\[\d+\] )$`

// jdbScript runs the scripted session and returns the normalized
// transcript: one entry per command. Deadlines are generous: a loaded machine
// only makes the session slower.
func jdbScript(t testing.TB, j *jdb) []string {
	line := demoapp.Line("work-first")
	var out []string
	step := func(cmd, want string) {
		t.Helper()
		j.send(cmd)
		got := j.expect(want, time.Minute)
		got += j.expect(jdbPrompt, time.Minute)
		out = append(out, cmd+" => "+normalizeJDB(got))
	}
	j.expect(`Initializing jdb \.\.\.\s*`+jdbPrompt, time.Minute)
	// The VM runs while jdb sets the breakpoint, so its first hit comes at a
	// moment that depends on the machine's load: before or after jdb's prompt,
	// even inside jdb's own lines. Wait for that hit (it suspends the VM) and
	// keep it out of the transcript; from there on every command's output is
	// deterministic, the same on both sides.
	j.send(fmt.Sprintf("stop at DemoApp:%d", line))
	got := j.expect(`Set breakpoint DemoApp:\d+`, time.Minute)
	// Only the confirmation: the hit's first words may have come before it.
	out = append(out, "stop at => "+regexp.MustCompile(`Set breakpoint DemoApp:\d+`).FindString(got))
	// jdb's event thread and command thread write concurrently, so even the
	// words "Breakpoint hit:" can come before "Set breakpoint": wait for the
	// end of the hit's line, then its prompt.
	j.expect(`"thread=main", [^\n]*line=\d+ bci=\d+`, time.Minute)
	j.expect(`\w+\[\d+\] $`, time.Minute)
	step("cont", `Breakpoint hit: .*line=\d+ bci=\d+\s*`)
	step("where", `\[2\] DemoApp\.main \(DemoApp\.java:\d+\)\s*`)
	step("locals", `Local variables:\s*`)
	step("next", `Step completed: .*line=\d+ bci=\d+\s*`)
	step("locals", `sum = \d+\s*`)
	step(fmt.Sprintf("clear DemoApp:%d", line), `Removed: breakpoint DemoApp:\d+\s*`)
	j.send("cont")
	j.expect(`> `, time.Minute)
	j.send("quit")
	select {
	case <-j.exited:
	case <-time.After(time.Minute):
		t.Fatal("jdb did not quit")
	}
	return out
}

var varyingJDB = []*regexp.Regexp{
	regexp.MustCompile(`n = \d+`),
	regexp.MustCompile(`\r`),
}

func normalizeJDB(s string) string {
	s = varyingJDB[0].ReplaceAllString(s, "n = N")
	s = varyingJDB[1].ReplaceAllString(s, "")
	return strings.TrimSpace(s)
}

// jdb through the current-VM port gives the same session as jdb attached
// directly to an identical VM; afterwards the VM runs on, monitored.
func TestJDBThroughCurrentPort(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 1)
	proxied := startDemo(t, lo, false)
	direct := startDemo(t, 0, false)
	m := startMonitor(t, testOptions(t, lo, 1))
	waitVM(t, m, proxied.Addr, 5*time.Second)

	var wg sync.WaitGroup
	var viaBridge, viaDirect []string
	wg.Add(2)
	go func() { defer wg.Done(); viaDirect = jdbScript(t, startJDB(t, direct.Addr)) }()
	go func() { defer wg.Done(); viaBridge = jdbScript(t, startJDB(t, m.CurrentAddr())) }()
	wg.Wait()
	if t.Failed() {
		return
	}
	if strings.Join(viaBridge, "\n") != strings.Join(viaDirect, "\n") {
		t.Errorf("jdb through the bridge differs from jdb attached directly:\n--- bridge ---\n%s\n--- direct ---\n%s",
			strings.Join(viaBridge, "\n"), strings.Join(viaDirect, "\n"))
	}
	t.Logf("transcript:\n%s", strings.Join(viaBridge, "\n"))
	waitTicking(t, proxied, 5*time.Second)
	info := waitVM(t, m, proxied.Addr, time.Second)
	waitFor(t, 5*time.Second, "debugger gone from VM info", func() bool { return !waitVM(t, m, proxied.Addr, time.Second).Debugger })
	_ = info
	_ = context.Background
}
