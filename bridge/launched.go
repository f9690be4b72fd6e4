package bridge

import (
	"context"
	"fmt"
	"net"
	"strings"

	"github.com/ddmbridge/ddmbridge/bridge/mux"
)

// AdoptLaunched monitors a JVM a debugger launched: its JDWP agent
// (server=n) connected out to the launcher, which accepted nc and hands it
// over before any byte was exchanged. The monitor handshakes and owns the
// connection from then on, as for a VM found by scanning: the VM is listed
// (vms/list, the explorer, pickers), its threads and CPU times are polled
// for the control API, and the launcher debugs it through OpenDebugger with
// the returned id. Nobody can dial the VM again, so its agent is never
// reset; it leaves the monitor when its connection closes. pid is the
// process the launcher started (0: found from the connection).
//
// The VM's per-VM debugger port (only this user may connect, like every
// JDWP port of the monitor) stays open only while the launcher's session
// lives — the first debugger OpenDebugger opens on the VM — unless
// keepPort (the launch configuration's keepDebugPort): a JVM left running
// after a disconnect is not left listening.
func (m *Monitor) AdoptLaunched(ctx context.Context, nc net.Conn, pid int, keepPort bool) (string, error) {
	if _, err := handshakeVM(ctx, nc, m.opts.ProbeTimeout); err != nil {
		nc.Close()
		return "", fmt.Errorf("the launched JVM at %s: %w", nc.RemoteAddr(), err)
	}
	// Its address is the agent's end of the connection (no one listens
	// there); the id is what debuggers and the control API use.
	v, err := m.adoptFrom(context.WithoutCancel(ctx), nc, nc.RemoteAddr().String(), vmOrigin{pid: pid})
	if err != nil {
		return "", fmt.Errorf("monitor the launched JVM: %w", err)
	}
	if !keepPort {
		v.launcherPending.Store(true)
	}
	return v.id, nil
}

// port is v's per-VM debugger port, 0 when it has none.
func (v *VM) port() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.debugPort
}

// launcherSession makes s, the first debugger opened on a launched VM
// (AdoptLaunched), its launcher's session: when s ends the VM's per-VM
// debugger port closes (unless the launch kept it).
func (m *Monitor) launcherSession(v *VM, s *mux.Session) {
	if !v.launcherPending.CompareAndSwap(true, false) {
		return
	}
	go func() {
		select {
		case <-s.Done():
		case <-v.removed:
			return // its port is parked and closed as any gone VM's
		}
		m.closePort(v.addr)
		v.mu.Lock()
		port := v.debugPort
		v.debugPort = 0
		v.mu.Unlock()
		if port == 0 {
			return
		}
		m.log.Info().Str("vm", v.id).Int("debugPort", port).
			Msg("closed the launched VM's debugger port: its session ended (the launch configuration's keepDebugPort keeps it open)")
		m.notify(EventChanged, v)
	}()
}

// MonitoredID returns the id of the monitored VM that target names (an id,
// "current", an address), or "" when there is none.
func (m *Monitor) MonitoredID(target string) string {
	v, err := m.VM(target)
	if err != nil {
		return ""
	}
	return v.id
}

// StopApp ends an Android app as Android Studio's Stop does: `am force-stop
// PACKAGE` on the device of the VM target names (the app, its other
// processes and its services end, and it is not restarted). A debugger
// that launched the app calls it when its session is stopped.
func (m *Monitor) StopApp(ctx context.Context, target, pkg string) error {
	v, err := m.VM(target)
	if err != nil {
		return err
	}
	serial := v.Info().Serial
	if serial == "" || m.adb == nil {
		return fmt.Errorf("VM %s is not on an adb device: no app to force-stop", v.id)
	}
	if !validPackage(pkg) {
		return fmt.Errorf("%q is not an application id", pkg)
	}
	out, err := m.adb.c.ShellArgs(ctx, serial, "am", "force-stop", pkg)
	if err != nil {
		return fmt.Errorf("am force-stop %s on %s: %w", pkg, serial, err)
	}
	if s := strings.TrimSpace(out); s != "" {
		m.log.Debug().Str("vm", v.id).Str("package", pkg).Str("output", s).Msg("am force-stop")
	}
	return nil
}

// validPackage reports whether pkg looks like an application id (letters,
// digits, '_' and '.', and ':' for a process name): it goes to a device shell.
func validPackage(pkg string) bool {
	if pkg == "" || len(pkg) > 255 {
		return false
	}
	for _, r := range pkg {
		if !(r == '.' || r == '_' || r == ':' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
