//go:build unix

package localjvm

import (
	"os"
	"syscall"
)

// KillGroup kills the process group p leads (p alone where there are none).
func KillGroup(p *os.Process) {
	if err := syscall.Kill(-p.Pid, syscall.SIGKILL); err != nil {
		p.Kill()
	}
}
