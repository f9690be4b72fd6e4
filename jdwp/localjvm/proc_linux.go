package localjvm

import "syscall"

// ProcAttr puts the JVM in its own process group, so KillGroup reaches any
// child it spawns, and has the kernel kill it if this process dies first.
func ProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
