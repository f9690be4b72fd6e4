package dap

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"
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

// runToMain lets a launched VM run until it has loaded mainClass and holds
// it there until configurationDone (see debugger.Target.RunToMain), so a
// JVM that cannot start the program fails the launch request with the
// JVM's own message and exit code.
func (d *debuggee) runToMain(ctx context.Context, mainClass string) error {
	return d.t.RunToMain(ctx, mainClass, func() error { return d.exitedEarly(mainClass) })
}

// exitedEarly is the error of a VM that ended before its main class loaded.
func (d *debuggee) exitedEarly(mainClass string) error {
	if d.proc == nil || !d.proc.Child() {
		return fmt.Errorf("the JVM exited before loading %s (see its terminal for why)", mainClass)
	}
	code, ok := d.proc.WaitExit(5 * time.Second)
	if !ok {
		return fmt.Errorf("the JVM disconnected before loading %s%s", mainClass, d.proc.StderrTail())
	}
	return fmt.Errorf("the JVM exited with code %d before loading %s:%s", code, mainClass, d.proc.StderrTail())
}
