//go:build unix && !linux

package busypoll

func yieldCPU() {}
