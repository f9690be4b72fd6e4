//go:build !unix

package localjvm

import (
	"os"
	"syscall"
)

// ProcAttr puts a started JVM in a process group of its own where there are.
func ProcAttr() *syscall.SysProcAttr { return nil }

// KillGroup kills the process group p leads (p alone where there are none).
func KillGroup(p *os.Process) { p.Kill() }
