package localjvm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Process is a local JVM.
type Process struct {
	PID int `json:"pid"`
	// Main is the main class, or the jar of -jar.
	Main string `json:"main"`
	// Command is the command line, shortened.
	Command string `json:"command"`
	// Address is where its JDWP agent listens (host:port), if it has one
	// that can be attached.
	Address string `json:"address,omitempty"`
	// NoAttach says why it cannot be attached when Address is empty: no
	// agent (and what to add), an agent that connects out, a random port.
	NoAttach string `json:"noAttach,omitempty"`
}

// maxCommand bounds Process.Command.
const maxCommand = 300

// List returns the Java processes of this machine the user can read, by pid.
func List() ([]Process, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w (only Linux's /proc is supported)", err)
	}
	var out []Process
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		args, err := cmdline(pid)
		if err != nil || len(args) == 0 || !isJava(args[0]) {
			continue
		}
		p := Process{PID: pid, Main: mainOf(args), Command: strings.Join(args, " ")}
		if len(p.Command) > maxCommand {
			p.Command = p.Command[:maxCommand] + "…"
		}
		if addr, err := AgentAddress(pid, args); err == nil {
			p.Address = addr
		} else {
			p.NoAttach = err.Error()
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out, nil
}

func cmdline(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return nil, err
	}
	s := strings.TrimRight(string(b), "\x00")
	if s == "" {
		return nil, nil
	}
	return strings.Split(s, "\x00"), nil
}

func isJava(argv0 string) bool {
	b := filepath.Base(argv0)
	return b == "java" || b == "javaw" || b == "java.exe"
}

// mainOf finds the main class (or -jar file) among a java command's arguments.
func mainOf(args []string) string {
	withValue := map[string]bool{"-cp": true, "-classpath": true, "--class-path": true, "-p": true, "--module-path": true,
		"--add-modules": true, "--add-opens": true, "--add-exports": true, "--add-reads": true, "-d": true}
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-jar" || a == "-m" || a == "--module":
			if i+1 < len(args) {
				return args[i+1]
			}
		case withValue[a]:
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return ""
}

// Get returns what process pid is, as List would, or why it cannot be attached.
func Get(pid int) (Process, error) {
	args, err := cmdline(pid)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Process{}, fmt.Errorf("process %d: no such process (or no /proc on this system)", pid)
		}
		return Process{}, fmt.Errorf("process %d: read its command line: %w", pid, err)
	}
	p := Process{PID: pid, Main: mainOf(args), Command: strings.Join(args, " ")}
	addr, err := AgentAddress(pid, args)
	if err != nil {
		return p, err
	}
	p.Address = addr
	return p, nil
}

// AgentAddress finds -agentlib:jdwp=... (or -Xrunjdwp:...) among a JVM's
// arguments and returns the address its server listens on, or says what is
// missing.
func AgentAddress(pid int, args []string) (string, error) {
	var opts string
	found := false
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "-agentlib:jdwp="):
			opts, found = strings.TrimPrefix(a, "-agentlib:jdwp="), true
		case strings.HasPrefix(a, "-Xrunjdwp:"):
			opts, found = strings.TrimPrefix(a, "-Xrunjdwp:"), true
		}
	}
	if !found {
		return "", fmt.Errorf("process %d has no JDWP agent: start it with -agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=PORT", pid)
	}
	kv := map[string]string{}
	for _, part := range strings.Split(opts, ",") {
		k, v, _ := strings.Cut(part, "=")
		kv[k] = v
	}
	if kv["server"] != "y" {
		return "", fmt.Errorf("process %d's JDWP agent connects out (server=n), it does not listen: restart it with server=y", pid)
	}
	if t := kv["transport"]; t != "" && t != "dt_socket" {
		return "", fmt.Errorf("process %d's JDWP agent uses transport %q; only dt_socket can be attached", pid, t)
	}
	addr := kv["address"]
	if addr == "" {
		return "", fmt.Errorf("process %d's JDWP agent has no fixed address (it picked a random port); restart it with address=PORT", pid)
	}
	host, port := "127.0.0.1", addr
	if i := strings.LastIndexByte(addr, ':'); i >= 0 {
		host, port = addr[:i], addr[i+1:]
		switch host {
		case "", "*", "0.0.0.0", "localhost":
			host = "127.0.0.1"
		}
	}
	if p, err := strconv.Atoi(port); err != nil || p <= 0 || p > 65535 {
		return "", fmt.Errorf("process %d's JDWP agent address %q has no usable port (address=0 picks a random one; restart it with a fixed port)", pid, addr)
	}
	return net.JoinHostPort(host, port), nil
}

// Why attaching fails.
var (
	// ErrNothingListening: no process accepts connections at the address.
	ErrNothingListening = errors.New("nothing is listening")
	// ErrHasDebugger: a local JVM's agent owns the address but refuses
	// connections: it serves another debugger.
	ErrHasDebugger = errors.New("the VM already has a debugger")
)

// Explain turns a failed dial of a JDWP address (refused, or reset: a dial
// that landed in the backlog as the agent stopped listening) into an error
// saying which case it is; other errors are returned as they are.
func Explain(addr string, err error) error {
	refused := errors.Is(err, syscall.ECONNREFUSED)
	if !refused && !errors.Is(err, syscall.ECONNRESET) {
		return err
	}
	if p, ok := agentAt(addr); ok {
		return fmt.Errorf("%w: process %d (%s) has its JDWP agent at %s but refuses connections — a JVM serves one debugger at a time; detach the other debugger (or the ddmbridge monitor that holds it) first", ErrHasDebugger, p.PID, p.Main, addr)
	}
	if !refused {
		return err
	}
	return fmt.Errorf("%w at %s: is the VM started with -agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=%s?", ErrNothingListening, addr, portOf(addr))
}

func portOf(addr string) string {
	if _, p, err := net.SplitHostPort(addr); err == nil {
		return p
	}
	return addr
}

// AgentAt returns the local JVM of this user whose JDWP agent was given
// addr's port (addr on this machine: a loopback or local address); the
// error says why there is none.
func AgentAt(addr string) (Process, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return Process{}, fmt.Errorf("%q is not a HOST:PORT address", addr)
	}
	if !isLocal(host) {
		return Process{}, fmt.Errorf("%s is not on this machine", addr)
	}
	ps, err := List()
	if err != nil {
		return Process{}, err
	}
	for _, p := range ps {
		if p.Address != "" && portOf(p.Address) == port {
			return p, nil
		}
	}
	return Process{}, fmt.Errorf("no local JVM of this user has its JDWP agent at port %s", port)
}

// agentAt is AgentAt without the reason.
func agentAt(addr string) (Process, bool) {
	p, err := AgentAt(addr)
	return p, err == nil
}

func isLocal(host string) bool {
	if host == "localhost" || host == "" {
		return true
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	if ip.IsLoopback() || ip.IsUnspecified() {
		return true
	}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}

// WaitRefused dials addr until a dial is refused (a HotSpot agent stops
// listening once it serves a debugger) or ctx ends, and returns the
// refusal; nil means ctx ended first.
func WaitRefused(ctx context.Context, addr string) error {
	var d net.Dialer
	for {
		nc, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		nc.Close()
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(20 * time.Millisecond):
		}
	}
}
