package jvmrun

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp/localjvm"
)

// DefaultTimeout bounds Start when Options.Timeout is zero.
const DefaultTimeout = 60 * time.Second

// listeningPrefix starts the line the JDWP agent prints on stdout once its
// dt_socket listener is bound (for suspend=y and suspend=n alike, unless the
// agent is given quiet=y, which Start never does).
const listeningPrefix = "Listening for transport dt_socket at address: "

// Options describe a JVM to start under the JDWP agent.
type Options struct {
	// ClassPath entries, joined with the OS list separator into -cp.
	ClassPath []string
	// MainClass is the class whose main method runs (required).
	MainClass string
	// Args are passed to main.
	Args []string
	// VMArgs go before the main class, after the agent option: "-Xmx256m",
	// "-Dthreads=20".
	VMArgs []string

	// Suspend starts the VM suspended (suspend=y) until a debugger attaches
	// and resumes it. A suspended VM prints nothing of its own, so ReadyLine
	// is normally left empty then.
	Suspend bool
	// AttachToDebugger starts the agent with server=n: instead of listening,
	// it connects out to Address, where a debugger must already be listening
	// (and must send the handshake). The default is server=y.
	AttachToDebugger bool
	// Address is the agent's address. With server=y the default is a free
	// loopback port: Start finds one (listen on 127.0.0.1:0, note the port,
	// close), hands it to the agent and starts again with another port if
	// something else bound it in between. (Port 0 given to the agent itself
	// would not do: the agent re-listens on a new ephemeral port after each
	// debugger detaches.) With AttachToDebugger it is required and names the
	// debugger's listener.
	Address string

	// Dir is the JVM's working directory; empty means the caller's.
	Dir string
	// JavaHome is the JDK whose bin/java runs; empty means FindTool's.
	JavaHome string
	// AgentOptions are more options of the JDWP agent, after its address
	// ("includevirtualthreads=y").
	AgentOptions string

	// ReadyLine, when set, makes Start wait until the program prints a line
	// containing it on stdout ("READY").
	ReadyLine string
	// Timeout bounds Start: JVM launch, the agent's listener and ReadyLine.
	// Zero means DefaultTimeout.
	Timeout time.Duration
}

// JVM is a running java process with the JDWP agent. Start returns it once
// the agent listens (server=y) and ReadyLine has been printed.
type JVM struct {
	// Addr is the JDWP address to dial ("127.0.0.1:40123"); with
	// AttachToDebugger it is the debugger address the agent connects to.
	Addr string
	// Port is Addr's port.
	Port int
	// Cmd is the java process; Pid is Cmd.Process.Pid. The process leads its
	// own process group, which Kill signals as a whole.
	Cmd *exec.Cmd
	Pid int

	stdout, stderr *lineLog

	done    chan struct{} // closed once the process has been reaped
	waitErr error         // cmd.Wait's result, set before done is closed

	killOnce sync.Once
	killed   chan struct{} // closed by Kill
}

// bindAttempts bounds how often Start picks a new free port when the agent
// finds its port taken.
const bindAttempts = 5

// Start launches java with -agentlib:jdwp=transport=dt_socket,... and waits
// until the agent is ready and, if set, ReadyLine has been printed. Agent
// readiness is the agent's "Listening for transport dt_socket at address:"
// line, which it prints with suspend=y and suspend=n alike once its port
// accepts connections. ctx and Options.Timeout bound only the start; the JVM
// runs until Close or Kill. On error no process is left behind.
func Start(ctx context.Context, opts Options) (*JVM, error) {
	if opts.MainClass == "" {
		return nil, errors.New("jvmrun: Options.MainClass is required")
	}
	if opts.AttachToDebugger && opts.Address == "" {
		return nil, errors.New("jvmrun: Options.Address is required with AttachToDebugger (server=n)")
	}
	java, err := FindTool("java")
	if opts.JavaHome != "" {
		java, err = filepath.Join(opts.JavaHome, "bin", "java"), nil
	}
	if err != nil {
		return nil, err
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	if opts.Address != "" {
		vm, _, err := start(ctx, java, opts, opts.Address)
		return vm, err
	}
	for attempt := 1; ; attempt++ {
		addr, err := freeLoopbackAddr()
		if err != nil {
			return nil, err
		}
		vm, bindFailed, err := start(ctx, java, opts, addr)
		if !bindFailed || attempt == bindAttempts || ctx.Err() != nil {
			return vm, err
		}
	}
}

// freeLoopbackAddr returns 127.0.0.1:PORT for a port that was free a moment
// ago.
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free loopback port: %w", err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr, nil
}

// start is one attempt of Start with a fixed agent address. bindFailed
// reports that the agent could not bind it.
func start(ctx context.Context, java string, opts Options, addr string) (_ *JVM, bindFailed bool, _ error) {
	agent := fmt.Sprintf("-agentlib:jdwp=transport=dt_socket,server=%s,suspend=%s,address=%s",
		yn(!opts.AttachToDebugger), yn(opts.Suspend), addr)
	if opts.AgentOptions != "" {
		agent += "," + opts.AgentOptions
	}
	args := append([]string{agent}, opts.VMArgs...)
	if len(opts.ClassPath) > 0 {
		args = append(args, "-cp", strings.Join(opts.ClassPath, string(os.PathListSeparator)))
	}
	args = append(args, opts.MainClass)
	args = append(args, opts.Args...)

	cmd := exec.Command(java, args...)
	cmd.Dir = opts.Dir
	cmd.SysProcAttr = localjvm.ProcAttr()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, false, fmt.Errorf("start java: %w", err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, false, fmt.Errorf("start java: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, false, fmt.Errorf("start %s: %w", java, err)
	}
	vm := &JVM{
		Cmd:    cmd,
		Pid:    cmd.Process.Pid,
		stdout: newLineLog(),
		stderr: newLineLog(),
		done:   make(chan struct{}),
		killed: make(chan struct{}),
	}
	var readers sync.WaitGroup
	readers.Add(2)
	go func() { defer readers.Done(); vm.stdout.readFrom(stdout) }()
	go func() { defer readers.Done(); vm.stderr.readFrom(stderr) }()
	go func() {
		// Wait must not run before the pipes are drained.
		readers.Wait()
		vm.waitErr = cmd.Wait()
		close(vm.done)
	}()

	fail := func(what string, err error) (*JVM, bool, error) {
		vm.Kill()
		<-vm.done
		bindFailed := slices.ContainsFunc(vm.Stderr(), func(s string) bool { return strings.Contains(s, "bind failed") })
		return nil, bindFailed, fmt.Errorf("java %s: %s: %w%s", strings.Join(args, " "), what, err, vm.OutputTail())
	}

	if opts.AttachToDebugger {
		vm.Addr = addr
	} else {
		line, err := vm.stdout.wait(ctx, listeningPrefix)
		if err != nil {
			return fail("waiting for the JDWP agent to listen", vm.exitCause(err))
		}
		host, _, _ := net.SplitHostPort(addr)
		switch host {
		case "", "*", "0.0.0.0", "localhost":
			host = "127.0.0.1"
		case "::":
			host = "::1"
		}
		port := line[strings.LastIndex(line, listeningPrefix)+len(listeningPrefix):]
		if i := strings.LastIndexByte(port, ':'); i >= 0 {
			port = port[i+1:]
		}
		vm.Addr = net.JoinHostPort(host, strings.TrimSpace(port))
	}
	if _, p, err := net.SplitHostPort(vm.Addr); err == nil {
		vm.Port, _ = strconv.Atoi(p)
	}
	if opts.ReadyLine != "" {
		if _, err := vm.stdout.wait(ctx, opts.ReadyLine); err != nil {
			return fail(fmt.Sprintf("waiting for %q on stdout", opts.ReadyLine), vm.exitCause(err))
		}
	}
	return vm, false, nil
}

// WaitForLine waits until the program has printed a line containing substr
// on stdout (at any time since start) and returns that line. It fails when
// ctx ends or stdout is closed without such a line.
func (vm *JVM) WaitForLine(ctx context.Context, substr string) (string, error) {
	line, err := vm.stdout.wait(ctx, substr)
	if err != nil {
		return "", fmt.Errorf("JVM pid %d: waiting for %q: %w", vm.Pid, substr, err)
	}
	return line, nil
}

// Stdout returns the lines printed on stdout so far, without line endings.
// The agent's "Listening for transport" line is among them.
func (vm *JVM) Stdout() []string { return vm.stdout.snapshot() }

// Stderr returns the lines printed on stderr so far.
func (vm *JVM) Stderr() []string { return vm.stderr.snapshot() }

// Exited is closed once the process has exited and been reaped.
func (vm *JVM) Exited() <-chan struct{} { return vm.done }

// Kill sends SIGKILL to the JVM's process group and returns without waiting.
// It is safe to call more than once and after the JVM has exited.
func (vm *JVM) Kill() {
	vm.killOnce.Do(func() {
		close(vm.killed)
		localjvm.KillGroup(vm.Cmd.Process)
	})
}

// Wait waits for the JVM to exit and returns its exit status as an
// *exec.ExitError (nil for status 0).
func (vm *JVM) Wait() error {
	<-vm.done
	return vm.waitErr
}

// Close kills the JVM and waits for it. It returns nil when the JVM died of
// the kill or had already exited with status 0, else the exit error.
func (vm *JVM) Close() error {
	select {
	case <-vm.done:
	default:
		vm.Kill()
	}
	err := vm.Wait()
	select {
	case <-vm.killed:
		return nil
	default:
		return err
	}
}

// exitCause turns "stdout closed" into the process's exit status when the
// process died during start.
func (vm *JVM) exitCause(err error) error {
	if !errors.Is(err, errEOF) {
		return err
	}
	select {
	case <-vm.done:
	case <-time.After(5 * time.Second):
		return err
	}
	if vm.waitErr != nil {
		return fmt.Errorf("JVM exited: %w", vm.waitErr)
	}
	return errors.New("JVM exited with status 0")
}

// OutputTail returns the last lines the JVM printed on stdout and stderr, for
// an error message or a failed test's log ("" when it printed nothing).
func (vm *JVM) OutputTail() string {
	var b strings.Builder
	for _, s := range []struct {
		name  string
		lines []string
	}{{"stdout", vm.Stdout()}, {"stderr", vm.Stderr()}} {
		lines := s.lines
		if len(lines) == 0 {
			continue
		}
		if len(lines) > 40 {
			lines = lines[len(lines)-40:]
		}
		fmt.Fprintf(&b, "\n--- %s ---\n%s", s.name, strings.Join(lines, "\n"))
		if s.name == "stderr" && strings.Contains(strings.Join(lines, "\n"), "bind failed") {
			b.WriteString("\n(the JDWP address is in use — is another VM or debugger on it?)")
		}
	}
	return b.String()
}

func yn(b bool) string {
	if b {
		return "y"
	}
	return "n"
}

var errEOF = errors.New("output closed (process exited?)")

// lineLog collects a stream's lines and lets callers wait for one.
type lineLog struct {
	mu      sync.Mutex
	lines   []string
	eof     bool
	changed chan struct{} // closed and replaced whenever lines or eof change
}

func newLineLog() *lineLog { return &lineLog{changed: make(chan struct{})} }

func (l *lineLog) readFrom(r io.Reader) {
	br := bufio.NewReader(r)
	for {
		s, err := br.ReadString('\n')
		if s != "" {
			l.mu.Lock()
			l.lines = append(l.lines, strings.TrimRight(s, "\r\n"))
			close(l.changed)
			l.changed = make(chan struct{})
			l.mu.Unlock()
		}
		if err != nil {
			break
		}
	}
	l.mu.Lock()
	l.eof = true
	close(l.changed)
	l.changed = make(chan struct{})
	l.mu.Unlock()
}

func (l *lineLog) wait(ctx context.Context, substr string) (string, error) {
	next := 0
	for {
		l.mu.Lock()
		for ; next < len(l.lines); next++ {
			if strings.Contains(l.lines[next], substr) {
				line := l.lines[next]
				l.mu.Unlock()
				return line, nil
			}
		}
		eof, changed := l.eof, l.changed
		l.mu.Unlock()
		if eof {
			return "", errEOF
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

func (l *lineLog) snapshot() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}
