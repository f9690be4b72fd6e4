//go:build !linux

package hprof

func availableMemory() uint64 { return 0 }
