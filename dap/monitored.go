package dap

import (
	"context"
	"fmt"
	"net"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// A session through the monitor: a launched JVM is handed to the monitor
// (so it is listed, its threads are polled with their CPU times, and the
// editor's views read it like any monitored VM), and the editor is told
// which monitored VM the session debugs (the ddmVM event).

// LaunchAdopter is implemented by backends that monitor VMs (the monitor):
// a JVM a launch started connects out to the session's listener, and the
// session hands that connection over before the handshake.
type LaunchAdopter interface {
	// AdoptLaunched handshakes nc, monitors its VM and returns the VM's
	// target for OpenDebugger. pid is the started process (0: unknown).
	AdoptLaunched(ctx context.Context, nc net.Conn, pid int) (target string, err error)
}

// VMIdentifier is implemented by backends that monitor VMs: the monitored
// VM a target names ("current", an id, an address), "" for none.
type VMIdentifier interface {
	MonitoredID(target string) string
}

// AppStopper is implemented by backends that reach Android devices: it
// ends an app as Android Studio's Stop does (am force-stop).
type AppStopper interface {
	StopApp(ctx context.Context, target, pkg string) error
}

// monitored is what a session knows of the monitor behind its debuggee.
type monitored struct {
	vm      string                          // the monitor's id of the VM, "" for none
	stopApp func(ctx context.Context) error // an app the session launched: end it on Stop
}

// acceptJVM takes the launched JVM's connection nc and returns the
// debuggee over it, named name. Through a monitor (LaunchAdopter) the
// monitor takes it and the session attaches through it like to any
// monitored VM; target is then the VM's id. Otherwise the session owns the
// connection and target is "".
func (s *session) acceptJVM(ctx context.Context, nc net.Conn, p *process, name string) (d *debuggee, target string, err error) {
	la, ok := s.cfg.Backend.(LaunchAdopter)
	if !ok {
		if d, err = newDebuggee(ctx, s, nc, name); err != nil {
			return nil, "", fmt.Errorf("the launched JVM from %s: %w", nc.RemoteAddr(), err)
		}
		return d, "", nil
	}
	target, err = la.AdoptLaunched(ctx, nc, p.Pid())
	if err != nil {
		return nil, "", err
	}
	dc, err := s.cfg.Backend.OpenDebugger(ctx, target)
	if err != nil {
		return nil, "", fmt.Errorf("debug the launched JVM (monitored as VM %s): %w", target, err)
	}
	if d, err = newDebuggee(ctx, s, dc, name); err != nil {
		return nil, "", fmt.Errorf("debug the launched JVM (monitored as VM %s): %w", target, err)
	}
	return d, target, nil
}

// noteMonitored records which monitored VM the session debugs.
func (s *session) noteMonitored(target string) {
	if vi, ok := s.cfg.Backend.(VMIdentifier); ok && target != "" {
		s.mon.vm = vi.MonitoredID(target)
	}
}

// ddmVM answers which monitored VM the session debugs.
func (s *session) ddmVM(context.Context, *ddmVMRequest) (DDMVMBody, error) {
	return DDMVMBody{ID: s.mon.vm}, nil
}

// launchedApp makes Stop end the Android app the session launched, as
// Android Studio does (am force-stop), when the backend can.
func (s *session) launchedApp(target, pkg string) {
	if as, ok := s.cfg.Backend.(AppStopper); ok {
		s.mon.stopApp = func(ctx context.Context) error { return as.StopApp(ctx, target, pkg) }
	}
}

// stopLaunchedApp force-stops the app the session launched, if any; false
// when there is none (the caller ends the VM its own way).
func (s *session) stopLaunchedApp(ctx context.Context) bool {
	stop := s.mon.stopApp
	if stop == nil {
		return false
	}
	s.mon.stopApp = nil
	if err := stop(ctx); err != nil {
		s.log.Warn().Err(err).Msg("stop the launched app")
		return false
	}
	return true
}

// quietError words an error response and says whether the client should
// not pop it up: a VM without DDM (the editor asks every session), a hot
// code replace (the editor reports its result itself, once), and a request
// the VM does not implement (a simulated or minimal VM: JDWP
// NOT_IMPLEMENTED), which is said in words and not raised as a toast.
func quietError(command string, err error) (details string, quiet bool) {
	switch {
	case jdwp.Code(err) == jdwp.ErrNotImplemented:
		return fmt.Sprintf("this VM does not support %s (its JDWP agent answers NOT_IMPLEMENTED): %v", command, err), true
	case command == "redefineClasses":
		return err.Error(), true
	}
	return err.Error(), false
}
