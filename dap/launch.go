package dap

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp/localjvm"
	godap "github.com/google/go-dap"
)

// process is a JVM the session started, directly or through the client's
// terminal (package jvmrun).
type process = localjvm.Debuggee

// javaExecutable finds java: the configured one, the configured JDK's
// bin/java, $JAVA_HOME/bin/java, or java on $PATH.
func javaExecutable(configured, javaHome string) (string, error) {
	if configured != "" {
		return configured, nil
	}
	if javaHome != "" {
		p := filepath.Join(javaHome, "bin", "java")
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			return "", fmt.Errorf(`"javaHome" %s holds no bin/java: name a JDK's folder (the one with bin/ and lib/ in it), or leave it out to use JAVA_HOME or java on PATH`, javaHome)
		}
		return p, nil
	}
	p, err := localjvm.FindTool("java")
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
	java, err := javaExecutable(cfg.JavaExec, cfg.JavaHome)
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

	var p *process
	terminal := cfg.Console == "integratedTerminal" || cfg.Console == "externalTerminal"
	if terminal && s.client.SupportsRunInTerminalRequest {
		if p, err = s.runInTerminal(ctx, cfg, cwd, argv); err != nil {
			return nil, "", err
		}
	} else {
		if terminal {
			s.output("console", fmt.Sprintf("console %q: the client cannot run a terminal, so the program's output appears here\n", cfg.Console))
		}
		if p, err = localjvm.StartDebuggee(argv, cwd, cfg.Env, s.output); err != nil {
			return nil, "", err
		}
	}

	nc, err := p.Accept(ctx, ln, argv, func(peer string, err error) {
		s.log.Warn().Err(err).Str("peer", peer).Str("listener", ln.Addr().String()).
			Msg("refused a connection to the launch listener: not the launched JVM")
	})
	if err != nil {
		return nil, "", err
	}
	d, target, err := s.acceptJVM(ctx, nc, p, cfg.MainClass, cfg.KeepDebugPort)
	if err != nil {
		p.Kill()
		return nil, "", err
	}
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
	} else {
		d.useJDKSources(java)
	}
	if cfg.StopOnEntry {
		d.stopOnEntry = cfg.MainClass
	}
	return d, target, nil
}

// output sends an output event.
func (s *session) output(category, text string) {
	s.send(&godap.OutputEvent{Event: newEvent("output"), Body: godap.OutputEventBody{Category: category, Output: text}})
}

// runInTerminal asks the client to start argv in its terminal.
func (s *session) runInTerminal(ctx context.Context, cfg *LaunchConfig, cwd string, argv []string) (*process, error) {
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
		return nil, fmt.Errorf("runInTerminal: no answer from the client: %w", err)
	}
	switch r := resp.(type) {
	case *godap.RunInTerminalResponse:
		return localjvm.TerminalDebuggee(r.Body.ProcessId), nil
	case *godap.ErrorResponse:
		msg := r.Message
		if r.Body.Error != nil {
			msg = r.Body.Error.Format
		}
		return nil, fmt.Errorf("runInTerminal: the client could not start the program: %s", msg)
	}
	return nil, fmt.Errorf("runInTerminal: unexpected answer %T", resp)
}
