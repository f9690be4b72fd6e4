// Package hprof reads HPROF heap dumps and analyses them: the binary format
// HotSpot writes ("JAVA PROFILE 1.0.2"/"1.0.3") and Android's variant (heap
// dump info records naming the app, zygote and image heaps, its extra root
// kinds and its data-less primitive arrays).
//
// What it owns:
//
//   - A streaming parser ([Parse]) that keeps a compact model of the heap
//     ([Heap]): one slot per object in parallel int32/uint32 arrays, references
//     as a CSR graph of object indices, the classes with Java source names
//     ("java.lang.String", "int[]"). Nothing per object is a Go pointer.
//   - Analyses over that model: the class histogram, the biggest objects,
//     the dominator tree with retained sizes, the path from a GC root to an
//     object, duplicate strings, the diff of two histograms, and a DDMS-style
//     heap map drawn from object addresses (HotSpot's ids are addresses) with
//     the colours of the DDM map ([ddm.HeapMap]).
//   - The one JSON schema of HPROF results (view.go: [SummaryJSON],
//     [DominatorsJSON], [DiffJSON], [Path], with strict decoders), carried by
//     the monitor's hprof/* results and `ddmbridge hprof --json` and decoded
//     by the editor; a class object is labelled after its class ([Heap.Label]).
//   - Bounds for callers: [ParseContext] stops when its context is done, and
//     [MemoryNeeded] with [AvailableMemory] lets a caller refuse a dump the
//     machine cannot hold before the Go runtime dies of it.
//   - A small writer ([Writer]) for well-formed dumps, used by the simulated
//     VM and by tests.
//
// What it must not touch: it opens no sockets and knows nothing about VMs,
// the monitor or how a dump was obtained (HotSpot's attach mechanism lives in
// internal/hotspot, Android's HPDS in bridge).
package hprof
