//go:build unix

package jvmrun

import (
	"os"
	"syscall"
)

func killGroup(p *os.Process) {
	if err := syscall.Kill(-p.Pid, syscall.SIGKILL); err != nil {
		p.Kill()
	}
}
