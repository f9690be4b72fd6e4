package bridge

import (
	"context"
	"fmt"
	"net"
	"strings"
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
func (m *Monitor) AdoptLaunched(ctx context.Context, nc net.Conn, pid int) (string, error) {
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
	return v.id, nil
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
