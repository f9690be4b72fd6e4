package jvmrun

import "syscall"

// sysProcAttr puts the JVM in its own process group, so killGroup reaches any
// child it spawns, and has the kernel kill it if this process dies first.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
