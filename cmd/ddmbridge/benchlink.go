package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	godap "github.com/google/go-dap"

	"github.com/ddmbridge/ddmbridge/bridge"
	"github.com/ddmbridge/ddmbridge/dap"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmrun"
	"github.com/ddmbridge/ddmbridge/jdwp/linkproxy"
)

const benchLinkUsage = "ddmbridge bench link [--delay D] [--steps N] [--via direct,monitor,jdb] [--json] [--chain] [--timeout D]"

// linkAction is one user action measured over the delayed link.
type linkAction struct {
	Client     string  `json:"client"` // "direct", "monitor" or "jdb"
	Action     string  `json:"action"`
	Sequential float64 `json:"sequential"`    // sequential round trips (mean over runs)
	MaxSeq     int     `json:"maxSequential"` // the most sequential round trips of one run
	Commands   float64 `json:"commands"`      // JDWP commands sent (mean over runs)
	Millis     float64 `json:"ms"`            // wall time (mean over runs)
	Runs       int     `json:"runs"`
	// Chain is the last run's commands by depth ("1: VirtualMachine.IDSizes,
	// ThreadReference.Frames×2"), with --chain.
	Chain []string `json:"chain,omitempty"`
}

// The actions, in the order they are printed.
const (
	actAttach    = "attach→first stop"
	actFirstStep = "first step+refresh"
	actStep      = "step+refresh"
	actSetBP     = "setBreakpoints (loaded class)"
	actEvaluate  = "evaluate a.b()"
	actThreads   = "threads (200 threads)"
	benchLinkSrc = "BenchTarget.java"
)

var linkActions = []string{actAttach, actFirstStep, actStep, actSetBP, actEvaluate, actThreads}

// runBenchLink measures what VS Code's requests (and jdb's commands for the
// same work) cost over a link with a delay: sequential JDWP round trips and
// milliseconds per action, directly and through the monitor.
func runBenchLink(ctx context.Context, fs *flag.FlagSet, args []string) error {
	delay := fs.Duration("delay", 20*time.Millisecond, "delay added each way between the debugger and the VM")
	steps := fs.Int("steps", 10, "step+refresh, evaluate, setBreakpoints and threads actions measured per client")
	via := fs.String("via", "direct,monitor,jdb", "clients measured: direct (the adapter attached to the link), monitor (a DAP session through the monitor, which owns the link), jdb (the JDK's jdb over the link)")
	asJSON := fs.Bool("json", false, "print one JSON line per client and action instead of the table")
	trace := fs.Bool("chain", false, "also print each action's commands, depth by depth (its last run): what waits on what")
	timeout := fs.Duration("timeout", 10*time.Minute, "bound on the whole benchmark")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: "+benchLinkUsage)
		fmt.Fprintln(fs.Output(), "\nStarts the bundled BenchTarget VM (200 parked threads, a hot loop), puts a delay proxy in front of it and\nprints, per action, the sequential JDWP round trips, the commands and the milliseconds each client took.")
		fs.PrintDefaults()
	}
	if err := parse(ctx, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	if *steps < 1 {
		return fmt.Errorf("%w: --steps must be at least 1", errUsage)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	clients := strings.Split(*via, ",")
	for _, c := range clients {
		if c != "direct" && c != "monitor" && c != "jdb" {
			return fmt.Errorf("%w: --via: unknown client %q (direct, monitor, jdb)", errUsage, c)
		}
	}
	results, err := benchLink(ctx, *delay, *steps, clients, *trace)
	if err != nil {
		return err
	}
	printLinkResults(os.Stdout, results, *delay, *asJSON)
	return nil
}

// benchLink starts BenchTarget and measures each client in turn over a
// fresh delay proxy in front of it.
func benchLink(ctx context.Context, delay time.Duration, steps int, clients []string, trace bool) ([]linkAction, error) {
	vm, err := jvmrun.StartBenchTarget(ctx, jvmrun.Options{VMArgs: []string{"-Dthreads=200", "-Ddepth=10"}})
	if err != nil {
		return nil, fmt.Errorf("start the bundled sample VM: %w", err)
	}
	defer vm.Close()
	srcDir, err := os.MkdirTemp("", "ddmbridge-benchlink-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(srcDir)
	src := filepath.Join(srcDir, benchLinkSrc)
	if err := os.WriteFile(src, []byte(jvmrun.BenchTargetSource), 0o600); err != nil {
		return nil, err
	}
	var out []linkAction
	for _, client := range clients {
		p, err := linkproxy.Start(vm.Addr, delay)
		if err != nil {
			return nil, err
		}
		var got []linkAction
		switch client {
		case "jdb":
			got, err = linkJDB(ctx, p, src, steps, trace)
		default:
			got, err = linkDAP(ctx, p, src, steps, client == "monitor", trace)
		}
		p.Close()
		if err != nil {
			return nil, fmt.Errorf("%s over the link: %w", client, err)
		}
		out = append(out, got...)
	}
	return out, nil
}

// benchLinkLine is the line of BenchTarget.java holding marker.
func benchLinkLine(marker string) int {
	for i, l := range strings.Split(jvmrun.BenchTargetSource, "\n") {
		if strings.Contains(l, marker) {
			return i + 1
		}
	}
	panic("BenchTarget.java has no line " + marker)
}

// The lines the actions stop at: the hot loop in main (a Node local to
// expand, a method to call) and a line of step(int).
var (
	linkLoopLine = benchLinkLine("sink += step((int) i);")
	linkStepLine = benchLinkLine("x += i % 7;")
)

// measure runs one action n times and averages what the link saw.
type measure struct {
	p      *linkproxy.Proxy
	client string
	sums   map[string]*linkAction
	order  []string
	trace  bool
}

// chainOf writes an action's commands depth by depth, each command with
// how often it was sent at that depth.
func chainOf(sent []linkproxy.Sent) []string {
	var out []string
	for i := 0; i < len(sent); {
		d := sent[i].Depth
		counts := map[string]int{}
		var names []string
		for ; i < len(sent) && sent[i].Depth == d; i++ {
			n := "handshake"
			if sent[i].Cmd != (jdwp.Cmd{}) {
				n = sent[i].Cmd.String()
			}
			if counts[n] == 0 {
				names = append(names, n)
			}
			counts[n]++
		}
		for j, n := range names {
			if counts[n] > 1 {
				names[j] = fmt.Sprintf("%s×%d", n, counts[n])
			}
		}
		out = append(out, fmt.Sprintf("%d: %s", d, strings.Join(names, ", ")))
	}
	return out
}

func (m *measure) run(action string, f func() error) error {
	m.p.Mark()
	start := time.Now()
	if err := f(); err != nil {
		return fmt.Errorf("%s: %w", action, err)
	}
	took := time.Since(start)
	s := m.p.Stats()
	a := m.sums[action]
	if a == nil {
		a = &linkAction{Client: m.client, Action: action}
		m.sums[action] = a
		m.order = append(m.order, action)
	}
	a.Runs++
	a.Sequential += float64(s.Sequential)
	a.MaxSeq = max(a.MaxSeq, s.Sequential)
	a.Commands += float64(s.Commands)
	a.Millis += float64(took) / float64(time.Millisecond)
	if m.trace {
		a.Chain = chainOf(m.p.Trace())
	}
	return nil
}

func (m *measure) results() []linkAction {
	var out []linkAction
	for _, name := range m.order {
		a := *m.sums[name]
		n := float64(a.Runs)
		a.Sequential /= n
		a.Commands /= n
		a.Millis /= n
		out = append(out, a)
	}
	return out
}

// linkDAP drives the adapter as VS Code does, attached to the link
// directly or through an in-process monitor that owns it.
func linkDAP(ctx context.Context, p *linkproxy.Proxy, src string, steps int, viaMonitor, trace bool) ([]linkAction, error) {
	m := &measure{p: p, client: "direct", sums: map[string]*linkAction{}, trace: trace}
	cfg := dapConfig()
	attach := map[string]any{"hostName": "127.0.0.1", "port": portOf(p.Addr()), "sourcePaths": []string{filepath.Dir(src)}}
	if viaMonitor {
		m.client = "monitor"
		mon, err := bridge.New(bridge.Options{DebugPortBase: -1, CurrentPort: -1, Logger: rootLogger()})
		if err != nil {
			return nil, err
		}
		defer mon.Close()
		runCtx, stop := context.WithCancel(ctx)
		defer stop()
		go mon.Run(runCtx)
		nc, err := net.DialTimeout("tcp", p.Addr(), 30*time.Second)
		if err != nil {
			return nil, err
		}
		v, err := mon.Connect(ctx, nc, p.Addr())
		if err != nil {
			return nil, err
		}
		cfg.Backend = monitorBackend{mon}
		attach = map[string]any{"vm": v.ID(), "sourcePaths": []string{filepath.Dir(src)}}
	}
	c, err := startLinkSession(ctx, dap.NewServer(cfg))
	if err != nil {
		return nil, err
	}
	defer c.close()

	var stopped *godap.StoppedEvent
	err = m.run(actAttach, func() error {
		if _, err := c.request(&godap.InitializeRequest{Request: c.req("initialize"), Arguments: godap.InitializeRequestArguments{
			AdapterID: "ddmbridge", LinesStartAt1: true, ColumnsStartAt1: true, SupportsVariableType: true, SupportsProgressReporting: true}}); err != nil {
			return err
		}
		raw, _ := json.Marshal(attach)
		if _, err := c.request(&godap.AttachRequest{Request: c.req("attach"), Arguments: raw}); err != nil {
			return err
		}
		if _, err := c.setBreakpoints(src, linkLoopLine); err != nil {
			return err
		}
		if _, err := c.request(&godap.ConfigurationDoneRequest{Request: c.req("configurationDone")}); err != nil {
			return err
		}
		stopped, err = c.awaitStopped(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	if _, err := c.setBreakpoints(src); err != nil { // steps only from here on
		return nil, err
	}
	thread := stopped.Body.ThreadId
	var frame int
	for i := range steps + 1 {
		action := actStep
		if i == 0 {
			action = actFirstStep // its classes and methods are new to the adapter
		}
		err := m.run(action, func() error {
			if _, err := c.request(&godap.NextRequest{Request: c.req("next"), Arguments: godap.NextArguments{ThreadId: thread}}); err != nil {
				return err
			}
			if _, err := c.awaitStopped(ctx); err != nil {
				return err
			}
			var err error
			frame, err = c.refresh(thread)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	for range steps {
		if err := m.run(actEvaluate, func() error {
			_, err := c.request(&godap.EvaluateRequest{Request: c.req("evaluate"), Arguments: godap.EvaluateArguments{Expression: "prev.hashCode()", FrameId: frame, Context: "repl"}})
			return err
		}); err != nil {
			return nil, err
		}
	}
	for range steps {
		if err := m.run(actSetBP, func() error {
			bps, err := c.setBreakpoints(src, linkStepLine)
			if err == nil && (len(bps) != 1 || !bps[0].Verified) {
				err = fmt.Errorf("breakpoint on a loaded class not verified: %+v", bps)
			}
			return err
		}); err != nil {
			return nil, err
		}
		if _, err := c.setBreakpoints(src); err != nil {
			return nil, err
		}
	}
	for range steps {
		if err := m.run(actThreads, func() error {
			r, err := c.request(&godap.ThreadsRequest{Request: c.req("threads")})
			if err == nil && len(r.(*godap.ThreadsResponse).Body.Threads) < 200 {
				err = fmt.Errorf("threads lists %d threads, want 200 or more", len(r.(*godap.ThreadsResponse).Body.Threads))
			}
			return err
		}); err != nil {
			return nil, err
		}
	}
	_, _ = c.request(&godap.DisconnectRequest{Request: c.req("disconnect"), Arguments: &godap.DisconnectArguments{}})
	return m.results(), nil
}

func portOf(addr string) int {
	_, port, _ := net.SplitHostPort(addr)
	var n int
	fmt.Sscan(port, &n)
	return n
}

// linkSession is a small synchronous DAP client on an in-process adapter:
// one request at a time, events gathered as they come.
type linkSession struct {
	conn   net.Conn
	codec  *godap.Codec
	seq    int
	msgs   chan godap.Message
	errc   chan error
	served chan struct{}
	// pendingStop holds the stopped events read while waiting for a
	// response, for awaitStopped.
	pendingStop []*godap.StoppedEvent
}

func startLinkSession(ctx context.Context, srv *dap.Server) (*linkSession, error) {
	a, b := net.Pipe()
	c := &linkSession{conn: a, codec: godap.NewCodec(), msgs: make(chan godap.Message, 256), errc: make(chan error, 1), served: make(chan struct{})}
	go func() {
		defer close(c.served)
		srv.ServeConn(ctx, b)
	}()
	go func() {
		r := bufio.NewReader(a)
		for {
			raw, err := godap.ReadBaseMessage(r)
			if err != nil {
				c.errc <- err
				close(c.msgs)
				return
			}
			m, err := c.codec.DecodeMessage(raw)
			if err != nil {
				continue // a custom event this client does not know
			}
			c.msgs <- m
		}
	}()
	return c, nil
}

func (c *linkSession) close() {
	c.conn.Close()
	select {
	case <-c.served:
	case <-time.After(time.Minute):
	}
}

func (c *linkSession) req(command string) godap.Request {
	c.seq++
	return godap.Request{ProtocolMessage: godap.ProtocolMessage{Seq: c.seq, Type: "request"}, Command: command}
}

// request sends r and returns its response, failing on an error response.
func (c *linkSession) request(r godap.RequestMessage) (godap.ResponseMessage, error) {
	if err := godap.WriteProtocolMessage(c.conn, r); err != nil {
		return nil, err
	}
	seq := r.GetRequest().Seq
	for {
		m, err := c.next(time.Minute)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.GetRequest().Command, err)
		}
		if resp, ok := m.(godap.ResponseMessage); ok && resp.GetResponse().RequestSeq == seq {
			if !resp.GetResponse().Success {
				return nil, fmt.Errorf("%s failed: %s", r.GetRequest().Command, responseMessage(m))
			}
			return resp, nil
		}
	}
}

func responseMessage(m godap.Message) string {
	if e, ok := m.(*godap.ErrorResponse); ok && e.Body.Error != nil {
		return e.Body.Error.Format
	}
	return m.(godap.ResponseMessage).GetResponse().Message
}

func (c *linkSession) next(wait time.Duration) (godap.Message, error) {
	select {
	case m, ok := <-c.msgs:
		if !ok {
			return nil, <-c.errc
		}
		if s, ok := m.(*godap.StoppedEvent); ok {
			c.pendingStop = append(c.pendingStop, s)
		}
		return m, nil
	case <-time.After(wait):
		return nil, errors.New("no message from the adapter for a minute")
	}
}

// awaitStopped returns the next stopped event, seen already or to come.
func (c *linkSession) awaitStopped(ctx context.Context) (*godap.StoppedEvent, error) {
	for len(c.pendingStop) == 0 {
		if _, err := c.next(time.Minute); err != nil {
			return nil, fmt.Errorf("waiting for a stop: %w", err)
		}
	}
	s := c.pendingStop[0]
	c.pendingStop = c.pendingStop[1:]
	return s, nil
}

func (c *linkSession) setBreakpoints(src string, lines ...int) ([]godap.Breakpoint, error) {
	bps := make([]godap.SourceBreakpoint, len(lines))
	for i, l := range lines {
		bps[i] = godap.SourceBreakpoint{Line: l}
	}
	r, err := c.request(&godap.SetBreakpointsRequest{Request: c.req("setBreakpoints"), Arguments: godap.SetBreakpointsArguments{
		Source: godap.Source{Name: filepath.Base(src), Path: src}, Breakpoints: bps}})
	if err != nil {
		return nil, err
	}
	return r.(*godap.SetBreakpointsResponse).Body.Breakpoints, nil
}

// refresh asks what VS Code asks after a stop: threads, the stopped
// thread's first 20 frames, the top frame's scopes, its locals, and the
// first structured local expanded. It returns the top frame's id.
func (c *linkSession) refresh(thread int) (int, error) {
	if _, err := c.request(&godap.ThreadsRequest{Request: c.req("threads")}); err != nil {
		return 0, err
	}
	r, err := c.request(&godap.StackTraceRequest{Request: c.req("stackTrace"), Arguments: godap.StackTraceArguments{ThreadId: thread, Levels: 20}})
	if err != nil {
		return 0, err
	}
	frames := r.(*godap.StackTraceResponse).Body.StackFrames
	if len(frames) == 0 {
		return 0, errors.New("no frames")
	}
	r, err = c.request(&godap.ScopesRequest{Request: c.req("scopes"), Arguments: godap.ScopesArguments{FrameId: frames[0].Id}})
	if err != nil {
		return 0, err
	}
	scopes := r.(*godap.ScopesResponse).Body.Scopes
	if len(scopes) == 0 {
		return 0, errors.New("no scopes")
	}
	r, err = c.request(&godap.VariablesRequest{Request: c.req("variables"), Arguments: godap.VariablesArguments{VariablesReference: scopes[0].VariablesReference}})
	if err != nil {
		return 0, err
	}
	for _, v := range r.(*godap.VariablesResponse).Body.Variables {
		if v.VariablesReference > 0 {
			_, err = c.request(&godap.VariablesRequest{Request: c.req("variables"), Arguments: godap.VariablesArguments{VariablesReference: v.VariablesReference}})
			break
		}
	}
	return frames[0].Id, err
}

// linkJDB does the same work with the JDK's jdb over the link: attach and
// stop at a breakpoint; next, where and locals per step; print of a method
// call; stop at a line of a loaded class; threads.
func linkJDB(ctx context.Context, p *linkproxy.Proxy, src string, steps int, trace bool) ([]linkAction, error) {
	jdbPath, err := jvmrun.FindTool("jdb")
	if err != nil {
		return nil, err
	}
	m := &measure{p: p, client: "jdb", sums: map[string]*linkAction{}, trace: trace}
	cmd := exec.CommandContext(ctx, jdbPath, "-attach", p.Addr(), "-sourcepath", filepath.Dir(src))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	j := &linkJDBSession{in: in}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	var attached bool
	defer func() {
		in.Close()
		if cmd.Process != nil {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		cmd.Wait()
		pw.Close()
	}()
	go j.read(pr)
	err = m.run(actAttach, func() error {
		if err := cmd.Start(); err != nil {
			return err
		}
		attached = true
		if _, err := j.await(ctx, initialPrompt); err != nil {
			return err
		}
		if err := j.send(fmt.Sprintf("stop at BenchTarget:%d", linkLoopLine)); err != nil {
			return err
		}
		_, err := j.await(ctx, regexp.MustCompile(`(?s)Breakpoint hit:.*\n\S+\[\d+\] $`))
		return err
	})
	if err != nil || !attached {
		return nil, err
	}
	if err := j.cmd(ctx, fmt.Sprintf("clear BenchTarget:%d", linkLoopLine)); err != nil {
		return nil, err
	}
	for i := range steps + 1 {
		action := actStep
		if i == 0 {
			action = actFirstStep
		}
		if err := m.run(action, func() error {
			if err := j.send("next"); err != nil {
				return err
			}
			if _, err := j.await(ctx, regexp.MustCompile(`(?s)Step completed:.*\n\S+\[\d+\] $`)); err != nil {
				return err
			}
			if err := j.cmd(ctx, "where"); err != nil {
				return err
			}
			return j.cmd(ctx, "locals")
		}); err != nil {
			return nil, err
		}
	}
	for range steps {
		if err := m.run(actEvaluate, func() error { return j.cmd(ctx, "print prev.hashCode()") }); err != nil {
			return nil, err
		}
	}
	for range steps {
		if err := m.run(actSetBP, func() error { return j.cmd(ctx, fmt.Sprintf("stop at BenchTarget:%d", linkStepLine)) }); err != nil {
			return nil, err
		}
		if err := j.cmd(ctx, fmt.Sprintf("clear BenchTarget:%d", linkStepLine)); err != nil {
			return nil, err
		}
	}
	for range steps {
		if err := m.run(actThreads, func() error { return j.cmd(ctx, "threads") }); err != nil {
			return nil, err
		}
	}
	j.send("cont")
	return m.results(), nil
}

// jdb's prompts: "> " before a thread is current, "main[1] " after.
var (
	initialPrompt = regexp.MustCompile(`(?m)^> $|\n> $`)
	threadPrompt  = regexp.MustCompile(`\n\S+\[\d+\] $`)
)

// linkJDBSession reads jdb's output and waits for its prompts.
type linkJDBSession struct {
	in   io.Writer
	mu   sync.Mutex
	buf  strings.Builder
	more chan struct{}
	eof  bool
}

func (j *linkJDBSession) read(r io.Reader) {
	b := make([]byte, 32<<10)
	for {
		n, err := r.Read(b)
		j.mu.Lock()
		j.buf.Write(b[:n])
		if err != nil {
			j.eof = true
		}
		if j.more != nil {
			close(j.more)
			j.more = nil
		}
		j.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (j *linkJDBSession) send(line string) error {
	j.mu.Lock()
	j.buf.Reset()
	j.mu.Unlock()
	_, err := io.WriteString(j.in, line+"\n")
	return err
}

// cmd sends a command and waits for the next thread prompt.
func (j *linkJDBSession) cmd(ctx context.Context, line string) error {
	if err := j.send(line); err != nil {
		return err
	}
	_, err := j.await(ctx, threadPrompt)
	return err
}

// await waits until the output since the last command matches re.
func (j *linkJDBSession) await(ctx context.Context, re *regexp.Regexp) (string, error) {
	deadline := time.NewTimer(2 * time.Minute)
	defer deadline.Stop()
	for {
		j.mu.Lock()
		out := j.buf.String()
		if re.MatchString(out) {
			j.mu.Unlock()
			return out, nil
		}
		if j.eof {
			j.mu.Unlock()
			return "", fmt.Errorf("jdb exited; it printed: %q", out)
		}
		if j.more == nil {
			j.more = make(chan struct{})
		}
		more := j.more
		j.mu.Unlock()
		select {
		case <-more:
		case <-ctx.Done():
			return "", ctx.Err()
		case <-deadline.C:
			return "", fmt.Errorf("jdb printed no %v in 2 minutes; it printed: %q", re, out)
		}
	}
}

// printLinkResults prints the table (or JSON lines): one row per action,
// each client's round trips and milliseconds side by side.
func printLinkResults(w io.Writer, rs []linkAction, delay time.Duration, asJSON bool) {
	if asJSON {
		enc := json.NewEncoder(w)
		for _, r := range rs {
			enc.Encode(r)
		}
		return
	}
	var clients []string
	by := map[string]map[string]linkAction{}
	for _, r := range rs {
		if by[r.Client] == nil {
			by[r.Client] = map[string]linkAction{}
			clients = append(clients, r.Client)
		}
		by[r.Client][r.Action] = r
	}
	fmt.Fprintf(w, "link: %v each way (one round trip ≥ %v); sequential round trips / JDWP commands / ms per action\n", delay, 2*delay)
	fmt.Fprintf(w, "%-30s", "action")
	for _, c := range clients {
		fmt.Fprintf(w, " | %-22s", c)
	}
	fmt.Fprintln(w)
	for _, a := range linkActions {
		fmt.Fprintf(w, "%-30s", a)
		for _, c := range clients {
			r, ok := by[c][a]
			if !ok {
				fmt.Fprintf(w, " | %-22s", "-")
				continue
			}
			fmt.Fprintf(w, " | %-22s", fmt.Sprintf("%4.1f rt %5.0f cmd %5.0f ms", r.Sequential, r.Commands, r.Millis))
		}
		fmt.Fprintln(w)
	}
	for _, r := range rs {
		if len(r.Chain) > 0 {
			fmt.Fprintf(w, "\n%s, %s (last run):\n  %s\n", r.Client, r.Action, strings.Join(r.Chain, "\n  "))
		}
	}
}
