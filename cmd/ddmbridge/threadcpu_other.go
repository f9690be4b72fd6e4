//go:build !linux

package main

// threadCPU is unknown here: 0.
func threadCPU() float64 { return 0 }
