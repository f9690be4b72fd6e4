package dap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	godap "github.com/google/go-dap"
)

// process is a JVM the session started, directly or through the client's terminal.
type process struct {
	cmd  *exec.Cmd // nil when the client's terminal started it
	pid  int
	done chan struct{} // closed when it exited (never, for a terminal process)
	code int

	mu     sync.Mutex
	stderr []string // the last lines of stderr, for launch errors
}

// waitExit waits up to d for the process to exit and returns its exit code.
func (p *process) waitExit(d time.Duration) (int, bool) {
	select {
	case <-p.done:
		return p.code, true
	case <-time.After(d):
		return 0, false
	}
}

func (p *process) kill() {
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

func (p *process) signal(sig syscall.Signal) {
	if p.pid > 0 {
		syscall.Kill(p.pid, sig)
	}
}

func (p *process) stderrTail() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.stderr) == 0 {
		return ""
	}
	return "\n" + strings.Join(p.stderr, "\n")
}

// javaExecutable finds java: the configured one, $JAVA_HOME/bin/java, or java on $PATH.
func javaExecutable(configured string) (string, error) {
	if configured != "" {
		return configured, nil
	}
	if home := os.Getenv("JAVA_HOME"); home != "" {
		p := filepath.Join(home, "bin", "java")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	p, err := exec.LookPath("java")
	if err != nil {
		return "", errors.New(`no java executable: set "javaExec" in the launch configuration, set JAVA_HOME, or put java on PATH`)
	}
	return p, nil
}

// commandLine is the java command line of a launch whose agent connects to addr.
func commandLine(java string, cfg *LaunchConfig, addr string) []string {
	args := []string{java, "-agentlib:jdwp=transport=dt_socket,server=n,suspend=y,address=" + addr}
	args = append(args, cfg.VMArgs...)
	if len(cfg.ClassPaths) > 0 {
		args = append(args, "-cp", strings.Join(cfg.ClassPaths, string(os.PathListSeparator)))
	}
	args = append(args, cfg.MainClass)
	return append(args, cfg.Args...)
}

// launch starts the program with its JDWP agent connecting back to a
// loopback listener of ours, and returns the connected debuggee.
// Through a monitor, target is the launched VM's id there ("" otherwise).
func (s *session) launch(ctx context.Context, cfg *LaunchConfig) (*debuggee, string, error) {
	java, err := javaExecutable(cfg.JavaExec)
	if err != nil {
		return nil, "", err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", fmt.Errorf("listen for the JVM: %w", err)
	}
	defer ln.Close()
	argv := commandLine(java, cfg, ln.Addr().String())
	cwd := cfg.Cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}

	p := &process{done: make(chan struct{})}
	terminal := cfg.Console == "integratedTerminal" || cfg.Console == "externalTerminal"
	if terminal && s.client.SupportsRunInTerminalRequest {
		if err := s.runInTerminal(ctx, cfg, cwd, argv, p); err != nil {
			return nil, "", err
		}
	} else {
		if terminal {
			s.output("console", fmt.Sprintf("console %q: the client cannot run a terminal, so the program's output appears here\n", cfg.Console))
		}
		if err := s.startProcess(cfg, cwd, argv, p); err != nil {
			return nil, "", err
		}
	}

	// Wait for the agent, giving up early if the JVM exits first.
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-p.done:
			cancel()
		case <-actx.Done():
		}
	}()
	conn, target, err := s.acceptJVM(actx, ln, p)
	if err != nil {
		select {
		case <-p.done:
			return nil, "", fmt.Errorf("the JVM exited with code %d before its debug agent connected (command: %s)%s", p.code, strings.Join(argv, " "), p.stderrTail())
		default:
		}
		p.kill()
		if ctx.Err() != nil {
			return nil, "", fmt.Errorf("the JVM did not connect within the timeout (raise \"timeout\"; command: %s)%s", strings.Join(argv, " "), p.stderrTail())
		}
		return nil, "", err
	}
	d := newDebuggee(s, conn, cfg.MainClass)
	d.opts = cfg.CommonConfig
	d.proc = p
	d.srcs.sourcePaths = cfg.SourcePaths
	if len(d.srcs.sourcePaths) == 0 {
		d.srcs.sourcePaths = []string{cwd}
		folders := cfg.WorkspaceFolders
		if len(folders) == 0 {
			folders = []string{cwd}
		}
		classPath := []string{}
		for _, e := range cfg.ClassPaths {
			if !filepath.IsAbs(e) {
				e = filepath.Join(cwd, e)
			}
			classPath = append(classPath, e)
		}
		d.useAutoSources(folders, classPath, java)
	}
	if cfg.StopOnEntry {
		d.stopOnEntry = cfg.MainClass
	}
	return d, target, nil
}

// startProcess runs argv as a child whose output becomes output events.
func (s *session) startProcess(cfg *LaunchConfig, cwd string, argv []string, p *process) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = cwd
	cmd.Env = os.Environ()
	for k, v := range cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", argv[0], err)
	}
	p.cmd, p.pid = cmd, cmd.Process.Pid
	var pipes sync.WaitGroup
	pipes.Add(2)
	go func() { defer pipes.Done(); s.forward(stdout, "stdout", nil) }()
	go func() { defer pipes.Done(); s.forward(stderr, "stderr", p) }()
	go func() {
		pipes.Wait() // Wait must not run before the pipes are drained
		err := cmd.Wait()
		p.code = cmd.ProcessState.ExitCode()
		if p.code < 0 && err != nil {
			p.code = 128 + int(syscall.SIGKILL)
		}
		close(p.done)
	}()
	return nil
}

// forward turns a pipe into output events, never splitting a UTF-8 character.
func (s *session) forward(r io.Reader, category string, p *process) {
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
			s.output(category, string(chunk[:cut]))
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
				s.output(category, string(carry))
			}
			return
		}
	}
}

// output sends an output event.
func (s *session) output(category, text string) {
	s.send(&godap.OutputEvent{Event: newEvent("output"), Body: godap.OutputEventBody{Category: category, Output: text}})
}

// runInTerminal asks the client to start argv in its terminal.
func (s *session) runInTerminal(ctx context.Context, cfg *LaunchConfig, cwd string, argv []string, p *process) error {
	kind := "integrated"
	if cfg.Console == "externalTerminal" {
		kind = "external"
	}
	env := map[string]any{}
	for k, v := range cfg.Env {
		env[k] = v
	}
	resp, err := s.reverseRequest(ctx, &godap.RunInTerminalRequest{
		Request: godap.Request{ProtocolMessage: godap.ProtocolMessage{Type: "request"}, Command: "runInTerminal"},
		Arguments: godap.RunInTerminalRequestArguments{
			Kind: kind, Title: cfg.MainClass, Cwd: cwd, Args: argv, Env: env,
		},
	})
	if err != nil {
		return fmt.Errorf("runInTerminal: no answer from the client: %w", err)
	}
	switch r := resp.(type) {
	case *godap.RunInTerminalResponse:
		p.pid = r.Body.ProcessId
		return nil
	case *godap.ErrorResponse:
		msg := r.Message
		if r.Body.Error != nil {
			msg = r.Body.Error.Format
		}
		return fmt.Errorf("runInTerminal: the client could not start the program: %s", msg)
	}
	return fmt.Errorf("runInTerminal: unexpected answer %T", resp)
}
