package hprof

// What analysing a dump costs in memory, to refuse a dump the machine cannot
// hold with a clear message instead of letting the Go runtime die with
// "fatal error: runtime: out of memory" (which no caller can recover from).

// MemoryNeeded estimates the peak memory in bytes that parsing a dump of
// size bytes takes and, with more, what follows on the parsed model: the
// dominator tree, a path search or the duplicate strings. Measured peak RSS
// of `ddmbridge hprof` on a 432 MB HotSpot dump (2.5 M objects): 0.67 bytes
// per dump byte for the model, 1.16 with duplicate strings; on a 1.49 GB
// one (33.6 M objects) 0.65 for the model and 0.80 with the dominator tree
// in memory (1.02 before session 12). The estimate rounds these up to 1 and
// 1.5, plus 64 MiB for the process.
func MemoryNeeded(size int64, more bool) uint64 {
	if size < 0 {
		size = 0
	}
	need := uint64(size) + 64<<20
	if more {
		need += uint64(size) / 2
	}
	return need
}

// AvailableMemory is the memory this process can still take, in bytes: the
// least of the system's available memory (MemAvailable), the room left under
// the process's cgroup limit and its address-space limit; 0 if none of them
// can be read (then nothing is known and nothing should be refused).
func AvailableMemory() uint64 { return availableMemory() }

// MemoryNeededSpill is [MemoryNeeded] for the dominator tree of a dump
// parsed with [Options.Spill] and computed with [DomOptions.Spill]. Measured
// peak RSS of `ddmbridge hprof --dominators` so on a 1.49 GB HotSpot dump
// (33.6 M objects): 0.55 bytes per dump byte (in memory then: 1.24); the estimate
// rounds it up to 3/4, plus 64 MiB for the process.
func MemoryNeededSpill(size int64) uint64 {
	if size < 0 {
		size = 0
	}
	return uint64(size)/4*3 + 64<<20
}

// MemoryNeededLean is [MemoryNeeded] for the dominator tree of a dump
// parsed in memory and computed with [DomOptions.Lean]. Measured peak RSS
// of `ddmbridge hprof --dominators` so on a 1.49 GB HotSpot dump (33.6 M
// objects): 0.59 bytes per dump byte; the estimate
// rounds it up to 0.85 (more than [MemoryNeededSpill]'s, so that a bound
// between them chooses the spill), plus 64 MiB for the process.
func MemoryNeededLean(size int64) uint64 {
	if size < 0 {
		size = 0
	}
	return uint64(size)/20*17 + 64<<20
}

// MemoryNeededCompact is [MemoryNeeded] for the dominator tree of a dump
// parsed in memory and computed with [DomOptions.Compact]. Measured peak
// RSS of `ddmbridge hprof --dominators` so on a 1.49 GB HotSpot dump (33.6
// M objects): 0.58 bytes per dump byte; the estimate rounds it up to 0.8
// (more than [MemoryNeededSpill]'s, so that a bound between them chooses
// the spill), plus 64 MiB for the process.
func MemoryNeededCompact(size int64) uint64 {
	if size < 0 {
		size = 0
	}
	return uint64(size)/5*4 + 64<<20
}
