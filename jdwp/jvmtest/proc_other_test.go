//go:build !unix

package jvmtest

func processAlive(pid int) bool { return false }
