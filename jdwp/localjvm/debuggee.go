package localjvm

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Debuggee is a JVM a debug session started: as its own child (Start-
// Debuggee), or through an editor's terminal (TerminalDebuggee), which
// only says its pid.
type Debuggee struct {
	cmd  *exec.Cmd // nil when a terminal started it
	pid  int
	done chan struct{} // closed when it exited (never, for a terminal's)
	code int

	mu     sync.Mutex
	stderr []string // the last lines of stderr, for launch errors
}

// TerminalDebuggee is a JVM an editor's terminal started, known by its pid
// (0 when the editor did not say).
func TerminalDebuggee(pid int) *Debuggee { return &Debuggee{pid: pid, done: make(chan struct{})} }

// StartDebuggee runs argv in dir with env added to this process's
// environment, in a process group of its own; out gets its stdout and
// stderr ("stdout", "stderr") as they come, never splitting a UTF-8
// character. The last 20 lines of stderr are kept for errors (StderrTail).
func StartDebuggee(argv []string, dir string, env map[string]string, out func(category, text string)) (*Debuggee, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	p := &Debuggee{cmd: cmd, pid: cmd.Process.Pid, done: make(chan struct{})}
	var pipes sync.WaitGroup
	pipes.Add(2)
	go func() { defer pipes.Done(); forward(stdout, "stdout", out, nil) }()
	go func() { defer pipes.Done(); forward(stderr, "stderr", out, p) }()
	go func() {
		pipes.Wait() // Wait must not run before the pipes are drained
		err := cmd.Wait()
		p.code = cmd.ProcessState.ExitCode()
		if p.code < 0 && err != nil {
			p.code = 128 + int(syscall.SIGKILL)
		}
		close(p.done)
	}()
	return p, nil
}

// forward turns a pipe into out's calls, never splitting a UTF-8
// character; p, when not nil, keeps the tail.
func forward(r io.Reader, category string, out func(category, text string), p *Debuggee) {
	buf := make([]byte, 32<<10)
	var carry []byte
	for {
		n, err := r.Read(buf)
		if n > 0 {
			chunk := append(carry, buf[:n]...)
			cut := len(chunk)
			for cut > 0 && cut > len(chunk)-utf8.UTFMax && !utf8.Valid(chunk[:cut]) {
				cut--
			}
			if !utf8.Valid(chunk[:cut]) {
				cut = len(chunk)
			}
			out(category, string(chunk[:cut]))
			if p != nil {
				p.mu.Lock()
				p.stderr = append(p.stderr, strings.Split(strings.TrimRight(string(chunk[:cut]), "\n"), "\n")...)
				if len(p.stderr) > 20 {
					p.stderr = p.stderr[len(p.stderr)-20:]
				}
				p.mu.Unlock()
			}
			carry = append([]byte(nil), chunk[cut:]...)
		}
		if err != nil {
			if len(carry) > 0 {
				out(category, string(carry))
			}
			return
		}
	}
}

// Pid is the process id (0 when a terminal did not say).
func (p *Debuggee) Pid() int { return p.pid }

// Child reports whether the JVM is this process's child (not a terminal's).
func (p *Debuggee) Child() bool { return p.cmd != nil }

// Done is closed when the JVM exited (never, for a terminal's).
func (p *Debuggee) Done() <-chan struct{} { return p.done }

// ExitCode is the exit code once Done is closed.
func (p *Debuggee) ExitCode() int { return p.code }

// WaitExit waits up to d for the process to exit and returns its exit code.
func (p *Debuggee) WaitExit(d time.Duration) (int, bool) {
	select {
	case <-p.done:
		return p.code, true
	case <-time.After(d):
		return 0, false
	}
}

// Kill sends SIGKILL, unless the process is known to have exited.
func (p *Debuggee) Kill() {
	if p.pid <= 0 {
		return
	}
	select {
	case <-p.done:
		return
	default:
	}
	syscall.Kill(p.pid, syscall.SIGKILL)
}

// Signal sends sig.
func (p *Debuggee) Signal(sig syscall.Signal) {
	if p.pid > 0 {
		syscall.Kill(p.pid, sig)
	}
}

// StderrTail is the last lines of stderr, each after a newline, or "".
func (p *Debuggee) StderrTail() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.stderr) == 0 {
		return ""
	}
	return "\n" + strings.Join(p.stderr, "\n")
}

// Accept waits for the connection of the JVM's debug agent on ln (its
// command line argv, for messages), giving up as soon as the JVM exits;
// the error then carries its exit code and stderr. A JVM that does not
// connect before ctx ends is killed.
func (p *Debuggee) Accept(ctx context.Context, ln net.Listener, argv []string) (net.Conn, error) {
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-p.done:
			cancel()
		case <-actx.Done():
		}
	}()
	nc, err := jdwp.AcceptConn(actx, ln)
	if err == nil {
		return nc, nil
	}
	select {
	case <-p.done:
		return nil, fmt.Errorf("the JVM exited with code %d before its debug agent connected (command: %s)%s", p.code, strings.Join(argv, " "), p.StderrTail())
	default:
	}
	p.Kill()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("the JVM did not connect within the timeout (raise \"timeout\"; command: %s)%s", strings.Join(argv, " "), p.StderrTail())
	}
	return nil, err
}
