//go:build unix && !linux

package localjvm

import "syscall"

// ProcAttr puts a started JVM in a process group of its own where there are.
func ProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
