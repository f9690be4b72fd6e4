package hprof

// What analysing a dump costs in memory, to refuse a dump the machine cannot
// hold with a clear message instead of letting the Go runtime die with
// "fatal error: runtime: out of memory" (which no caller can recover from).

// MemoryNeeded estimates the peak memory in bytes that parsing a dump of
// size bytes takes, and with dominators the dominator tree on top. The
// figures are measured on HotSpot dumps (see BenchmarkParse and the CLI's
// TestHprofMemoryEstimate): the model takes about 0.8 bytes per dump byte
// after the garbage of parsing, the dominator tree about 0.9 more; both are
// rounded up here, plus the fixed cost of the process.
func MemoryNeeded(size int64, dominators bool) uint64 {
	if size < 0 {
		size = 0
	}
	need := uint64(size) + 64<<20
	if dominators {
		need += uint64(size)
	}
	return need
}

// AvailableMemory is the memory this process can still take, in bytes: the
// least of the system's available memory (MemAvailable), the room left under
// the process's cgroup limit and its address-space limit; 0 if none of them
// can be read (then nothing is known and nothing should be refused).
func AvailableMemory() uint64 { return availableMemory() }
