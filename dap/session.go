package dap

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"syscall"
	"time"

	"github.com/ddmbridge/ddmbridge/dap/launchcfg"
	godap "github.com/google/go-dap"
)

// Session start and end: launch, attach, configurationDone, disconnect, terminate.

func (s *session) onLaunchRequest(r *godap.LaunchRequest) {
	if s.dbg != nil {
		s.sendError(&r.Request, ErrBadState, fmt.Errorf("launch: the session already has a debuggee (%s)", s.dbg.target))
		return
	}
	var cfg LaunchConfig
	if err := launchcfg.Parse("launch", r.Arguments, &cfg); err != nil {
		s.sendError(&r.Request, ErrFailedToLaunch, err)
		return
	}
	if cfg.PackageName != "" {
		s.launchAndroid(&r.Request, &cfg)
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, cfg.StartTimeout())
	defer cancel()
	err := checkClassPaths(cfg.ClassPaths)
	var d *debuggee
	target := "" // the launched VM's id in the monitor, if one took it
	if err == nil {
		d, target, err = s.launch(ctx, &cfg)
	}
	if err == nil {
		err = s.begin(ctx, d, target)
	}
	if err == nil && cfg.MainClass != "" {
		err = d.runToMain(ctx, cfg.MainClass)
	}
	if err != nil {
		if d != nil {
			d.release(ctx, true)
			s.dbg = nil
		}
		s.sendError(&r.Request, ErrFailedToLaunch, fmt.Errorf("launch %s: %w", cfg.MainClass, err))
		return
	}
	s.announce(&r.Request, "launch", cfg.MainClass, d.proc.Pid())
}

func (s *session) onAttachRequest(r *godap.AttachRequest) {
	if s.dbg != nil {
		s.sendError(&r.Request, ErrBadState, fmt.Errorf("attach: the session already has a debuggee (%s)", s.dbg.target))
		return
	}
	var cfg AttachConfig
	if err := launchcfg.Parse("attach", r.Arguments, &cfg); err != nil {
		s.sendError(&r.Request, ErrFailedToAttach, err)
		return
	}
	target := cfg.VM
	switch {
	case cfg.ProcessID != 0:
		addr, err := processJDWPAddress(int(cfg.ProcessID))
		if err != nil {
			s.sendError(&r.Request, ErrFailedToAttach, fmt.Errorf("attach: %w", err))
			return
		}
		target = addr
	case target == "":
		host := cfg.HostName
		if host == "" {
			host = "127.0.0.1"
		}
		target = net.JoinHostPort(host, strconv.Itoa(cfg.Port))
	}
	ctx, cancel := context.WithTimeout(s.ctx, cfg.StartTimeout())
	defer cancel()
	d, err := s.attach(ctx, target, cfg.CommonConfig, cfg.WaitForVM)
	if err != nil {
		s.sendError(&r.Request, ErrFailedToAttach, fmt.Errorf("attach %s: %w", target, err))
		return
	}
	d.srcs.sourcePaths = cfg.SourcePaths
	if len(d.srcs.sourcePaths) == 0 {
		d.srcs.sourcePaths = []string{"."}
		d.useAutoSources(cfg.Workspace(), nil, "")
	} else {
		d.useJDKSources("")
	}
	pid := int(cfg.ProcessID)
	if pid == 0 && d.ddm != nil {
		pid = int(d.ddm.client.Data().Identity().PID)
	}
	s.announce(&r.Request, "attach", target, pid)
}

// launchAndroid starts an app through the backend's AndroidLauncher and
// attaches to its VM; the VM runs when configurationDone arrives (the
// VM_START suspension of a VM that waits for its debugger is held until
// then) and is terminated on disconnect unless terminateDebuggee is false.
func (s *session) launchAndroid(req *godap.Request, cfg *LaunchConfig) {
	al, ok := s.cfg.Backend.(AndroidLauncher)
	if !ok {
		s.sendError(req, ErrFailedToLaunch, fmt.Errorf("launch %s: %w", cfg.PackageName, errNoAndroid))
		return
	}
	rctx, rcancel := s.reqCtx()
	defer rcancel()
	ctx, cancel := context.WithTimeout(rctx, cfg.StartTimeout())
	defer cancel()
	p := s.startProgress(req.Seq, "Launching "+cfg.PackageName, "")
	target, err := al.LaunchAndroid(ctx, AndroidLaunch{
		Device: cfg.TargetDevice, Package: cfg.PackageName, Activity: cfg.LaunchActivity,
		AmStartArgs: cfg.AmStartArgs, APK: cfg.ApkFile,
	}, func(msg string) { p.Update(msg, -1) })
	if err != nil {
		p.End("failed")
		s.sendError(req, ErrFailedToLaunch, fmt.Errorf("launch %s: %w", cfg.PackageName, err))
		return
	}
	p.Update("attaching to "+target, -1)
	d, err := s.attach(ctx, target, cfg.CommonConfig, true)
	p.End("")
	if err != nil {
		s.sendError(req, ErrFailedToLaunch, fmt.Errorf("launch %s: attach %s: %w", cfg.PackageName, target, err))
		return
	}
	d.launched = true
	s.launchedApp(target, cfg.PackageName)
	d.srcs.sourcePaths = cfg.SourcePaths
	if len(d.srcs.sourcePaths) == 0 {
		d.srcs.sourcePaths = []string{"."}
	}
	pid := 0
	if d.ddm != nil {
		pid = int(d.ddm.client.Data().Identity().PID)
	}
	s.announce(req, "launch", cfg.PackageName, pid)
}

// attach opens the VM through the backend, performs the handshake and
// starts the session; wait retries a refused connection until ctx ends.
func (s *session) attach(ctx context.Context, target string, common CommonConfig, wait bool) (*debuggee, error) {
	nc, err := openWithRetry(ctx, s.cfg.Backend, target, wait)
	if err != nil {
		return nil, err
	}
	d, err := newDebuggee(ctx, s, nc, target)
	if err != nil {
		return nil, err
	}
	d.opts = common
	if err := s.begin(ctx, d, target); err != nil {
		d.release(ctx, false)
		return nil, err
	}
	return d, nil
}

// begin starts DDM and the event loop of a connected debuggee.
func (s *session) begin(ctx context.Context, d *debuggee, target string) error {
	if err := d.t.Preload(ctx); err != nil {
		return err
	}
	s.startDDM(ctx, d, target)
	if err := d.start(ctx); err != nil {
		return err
	}
	s.dbg = d
	s.noteMonitored(target)
	s.followLog(d, target) // logcat.go
	return nil
}

// announce finishes a successful launch or attach: process event, the
// capabilities this VM lacks, the response, then initialized.
func (s *session) announce(req *godap.Request, method, name string, pid int) {
	s.send(&godap.ProcessEvent{Event: newEvent("process"), Body: godap.ProcessEventBody{
		Name: name, SystemProcessId: pid, IsLocalProcess: s.dbg.proc != nil || method == "attach" && pid != 0, StartMethod: method,
	}})
	if w := withdrawn(s.dbg.caps); len(w) > 0 {
		s.send(&capabilitiesEvent{Event: newEvent("capabilities"), Body: capabilitiesBody{Capabilities: w}})
	}
	s.send(&godap.LaunchResponse{Response: newResponse(req)})
	s.send(&godap.InitializedEvent{Event: newEvent("initialized")})
}

// capabilitiesEvent carries withdrawn capabilities as explicit false values,
// which go-dap's Capabilities (all omitempty) cannot express.
type capabilitiesEvent struct {
	godap.Event
	Body capabilitiesBody `json:"body"`
}

type capabilitiesBody struct {
	Capabilities map[string]bool `json:"capabilities"`
}

// onConfigurationDoneRequest answers itself. When it lets the VM run (a
// held start) or arms the entry stop, no stop is reported before the
// response (see the resumes route), so it is sent under stopMu. Otherwise
// it lets nothing run: a stop shown meanwhile holds whichever comes first,
// and the answer does not wait for that stop's hold (a round trip on a
// slow link, in which the stop's next reads would leave before it).
func (s *session) onConfigurationDoneRequest(r *godap.ConfigurationDoneRequest) {
	ctx, cancel := s.reqCtx()
	defer cancel()
	if s.dbg.t.Configured(s.dbg.stopOnEntry) {
		s.dbg.t.StopMu.Lock()
		defer s.dbg.t.StopMu.Unlock()
	}
	if err := s.dbg.configurationDone(ctx); err != nil {
		s.sendError(&r.Request, ErrUnableToResume, fmt.Errorf("configurationDone: %w", err))
		return
	}
	s.send(&godap.ConfigurationDoneResponse{Response: newResponse(&r.Request)})
}

func (s *session) isDone() bool { return s.closing.Load() }

func (s *session) onDisconnectRequest(r *godap.DisconnectRequest) {
	s.closing.Store(true)
	var err error
	if d := s.dbg; d != nil && !s.released {
		terminate := d.proc != nil || d.launched
		var args struct {
			Arguments struct {
				TerminateDebuggee *bool `json:"terminateDebuggee"`
			} `json:"arguments"`
		}
		if json.Unmarshal(s.current, &args) == nil && args.Arguments.TerminateDebuggee != nil {
			terminate = *args.Arguments.TerminateDebuggee
		}
		ctx, cancel := s.reqCtx()
		err = d.release(ctx, terminate)
		if terminate {
			s.stopLaunchedApp(ctx) // an Android app the session launched: am force-stop
		}
		cancel()
		s.released = true
	}
	s.done = true
	if err != nil {
		s.sendError(&r.Request, ErrUnableToDisconnect, err)
		return
	}
	s.send(&godap.DisconnectResponse{Response: newResponse(&r.Request)})
}

// terminate ends the debuggee gracefully: a JVM the session started
// gets SIGTERM (shutdown hooks run), any other VM is told to exit. The
// exited and terminated events follow when the VM is gone.
func (s *session) terminate(ctx context.Context, r *godap.TerminateRequest) (*struct{}, error) {
	d := s.dbg
	if d.proc != nil && d.proc.Pid() > 0 {
		if err := d.resumeAll(ctx); err != nil {
			s.log.Debug().Err(err).Msg("terminate: resume before SIGTERM")
		}
		d.proc.Signal(syscall.SIGTERM)
		go func() {
			select {
			case <-d.t.EndedCh():
			case <-time.After(5 * time.Second):
				d.proc.Kill()
			}
		}()
	} else if s.stopLaunchedApp(ctx) {
		// an Android app the session launched: am force-stop, as Android Studio does
	} else if err := d.t.Exit(ctx, 0); err != nil && d.t.Err() == nil {
		return nil, err
	}
	return nil, nil
}

// release runs when the session ends without a disconnect: the VM is never
// left suspended.
func (s *session) release() {
	s.closing.Store(true)
	if s.dbg == nil || s.released {
		return
	}
	s.released = true
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.dbg.release(ctx, s.dbg.proc != nil); err != nil {
		s.log.Warn().Err(err).Msg("releasing the VM at the end of the session")
	}
}
