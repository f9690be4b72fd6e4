package dap

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Launch checks: what can be known wrong before the program runs is said by
// the launch request's error, not by a JVM line in the Debug Console after
// the session ended.

// checkClassPaths fails when a classPaths entry does not exist (a typo, or a
// build output folder not built yet). "dir/*" names the jars of dir.
func checkClassPaths(paths []string) error {
	for _, p := range paths {
		dir := strings.TrimSuffix(strings.TrimSuffix(p, "*"), string(os.PathSeparator))
		if dir == "" {
			dir = "."
		}
		if _, err := os.Stat(dir); err != nil {
			return fmt.Errorf(`classPaths entry %q does not exist (is the program built, and the path right?)`, p)
		}
	}
	return nil
}

// runToMain lets a launched VM run from VM_START until it has loaded
// mainClass, and holds it suspended there until configurationDone, so a
// JVM that cannot start the program (a mistyped main class, a broken class
// path, a bad VM option) fails the launch request with the JVM's own
// message and exit code. Nothing of the program has run yet: the main
// class is prepared, not initialized.
func (d *debuggee) runToMain(ctx context.Context, mainClass string) error {
	req, err := d.setRequest(ctx, jdwp.EventClassPrepare, jdwp.SuspendAll, jdwp.ClassMatch(mainClass))
	if err != nil {
		return fmt.Errorf("wait for the main class: %w", err)
	}
	ready := make(chan struct{})
	d.mu.Lock()
	d.life.mainReq, d.life.mainReady, d.life.launching = req, ready, true
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.life.launching = false
		d.mu.Unlock()
	}()
	// The VM_START suspension is held once its event is handled.
	for {
		d.mu.Lock()
		held := d.life.heldStart
		d.mu.Unlock()
		if held {
			break
		}
		select {
		case <-d.life.endedCh:
			return d.exitedEarly(mainClass)
		case <-ctx.Done():
			return fmt.Errorf("the VM did not start: %w", ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
	d.mu.Lock()
	d.life.heldStart = false
	d.mu.Unlock()
	if err := d.conn.Resume(ctx); err != nil {
		return fmt.Errorf("start the VM: %w", err)
	}
	select {
	case <-ready:
		return nil
	case <-d.life.endedCh:
		return d.exitedEarly(mainClass)
	case <-ctx.Done():
		return fmt.Errorf("the JVM did not load %s in time (raise \"timeout\"): %w", mainClass, ctx.Err())
	}
}

// exitedEarly is the error of a VM that ended before its main class loaded.
func (d *debuggee) exitedEarly(mainClass string) error {
	if d.proc == nil || d.proc.cmd == nil {
		return fmt.Errorf("the JVM exited before loading %s (see its terminal for why)", mainClass)
	}
	code, ok := d.proc.waitExit(5 * time.Second)
	if !ok {
		return fmt.Errorf("the JVM disconnected before loading %s%s", mainClass, d.proc.stderrTail())
	}
	return fmt.Errorf("the JVM exited with code %d before loading %s:%s", code, mainClass, d.proc.stderrTail())
}

// onMainPrepared holds the suspension of the main class's prepare event
// until configurationDone (see runToMain); it reports false for other events.
func (d *debuggee) onMainPrepared(ctx context.Context, e jdwp.Event) bool {
	d.mu.Lock()
	if e.Kind != jdwp.EventClassPrepare || d.life.mainReq == 0 || e.RequestID != d.life.mainReq {
		d.mu.Unlock()
		return false
	}
	d.life.mainReq = 0
	d.life.heldStart = true
	ready := d.life.mainReady
	d.mu.Unlock()
	d.clearRequest(ctx, jdwp.EventClassPrepare, e.RequestID)
	close(ready)
	return true
}
