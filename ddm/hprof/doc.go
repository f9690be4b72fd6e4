// Package hprof reads HPROF heap dumps and analyses them: the binary format
// HotSpot writes ("JAVA PROFILE 1.0.2"/"1.0.3") and Android's variant (heap
// dump info records naming the app, zygote and image heaps, its extra root
// kinds and its data-less primitive arrays).
//
// What it owns:
//
//   - A streaming parser ([Parse]) that keeps a compact model of the heap
//     ([Heap]): one slot per object in parallel int32/uint32 arrays, references
//     as a CSR graph of object indices, shallow sizes as their class's but
//     where a bit says otherwise (sizes.go), the classes with Java source
//     names ("java.lang.String", "int[]"). Nothing per object is a Go
//     pointer.
//   - Analyses over that model: the class histogram, the biggest objects,
//     the dominator tree with retained sizes, the path from a GC root to an
//     object, duplicate strings, the diff of two histograms, and a DDMS-style
//     heap map drawn from object addresses (HotSpot's ids are addresses) with
//     the colours of the DDM map ([ddm.HeapMap]).
//   - The one JSON schema of HPROF results (view.go: [SummaryJSON],
//     [DominatorsJSON], [DiffJSON], [Path], with strict decoders), carried by
//     the monitor's hprof/* results and `ddmbridge hprof --json` and decoded
//     by the editor; a class object is labelled after its class ([Heap.Label]).
//   - A streamed pass ([StreamHistogram]) that counts the objects by class
//     without a model: the histogram and the summary ([StreamedSummary]) in
//     memory bounded by the classes, the object records counted on every
//     core (streampar.go), 64-bit counts; [SyntheticDump] generates a dump
//     of any number of objects as it is read, to measure it past 2^31. The
//     duplicate strings ([Streamed.DuplicateStrings], streamdups.go) in a
//     budget ([StreamOptions.StringsMemory]): the Strings' references and
//     arrays past it wait in sorted runs in a temporary file, merged to
//     join and group them (extsort.go).
//   - Bounds for callers: [ParseContext], [Heap.DominatorsContext] and
//     [Dominators.ClassRetainedContext] stop when their context is done, and
//     [MemoryNeeded] with [AvailableMemory] lets a caller refuse a dump the
//     machine cannot hold before the Go runtime dies of it, or choose
//     ([MemoryNeededCompact], [MemoryNeededLean], [MemoryNeededSpill]) to
//     compute the dominator tree with the model's arrays it does not read
//     packed in memory ([DomOptions.Compact], pack.go) or in a temporary
//     file (nameless on Linux: O_TMPFILE, tmpfile_linux.go), each written
//     and read back whole ([DomOptions.Lean]), or with the graph too read
//     from the file ([Options.Spill], [DomOptions.Spill]).
//   - A small writer ([Writer]) for well-formed dumps, used by the simulated
//     VM and by tests.
//
// The reachability model is Eclipse MAT's, which is the JVM's:
//
//   - GC roots are the dump's root records — JNI globals and locals, Java
//     frames (with their thread and frame), thread objects, busy monitors,
//     sticky classes (HotSpot lists the boot loader's instance classes, ART
//     its boot classes) — and the boot loader's classes, which the VM never
//     unloads (MAT's "system class"; HotSpot leaves its array classes such
//     as byte[]'s out of the sticky list; a dump cut short before its roots
//     has none). A class object of any other loader is not a root by being
//     a class.
//   - The edges are an object's references (fields, array elements); every
//     object's edge to its class object (the JVM's object header); a class
//     object's edges to its superclass, its loader, its signers and
//     protection domain, its constant pool's resolved references and its
//     static fields; and a class loader's edges to the classes it defined
//     (the VM's class loader data holds them while the loader lives). So a
//     class loader retains its classes and their statics, and an instance of
//     a class keeps its loader alive: a class-loader leak shows as the
//     loader's retained size and as a path from a root to the loader.
//   - Paths to an object ([Heap.PathTo], [Heap.PathFromRoot]) are shortest
//     paths over those edges that take a loader's edge to a defined class
//     only where no chain of references (normally the loader's `classes`
//     list) reaches it, and never pass through the referent of a weak, soft
//     or phantom reference (Eclipse MAT's "excluding weak/soft
//     references"). A long path is elided while it is walked back, so
//     what it keeps is bounded by what it prints. The paths to a set of
//     objects (a class's instances) merge into a tree ([Heap.MergedPaths],
//     MAT's "merge shortest paths to GC roots").
//   - A class's retained size ([Dominators.ClassRetained]) is that of its
//     instances as a set: what some instance dominates, each object once.
//   - The steps of paths and incoming references name the field or
//     element that holds each object ([PathStep.Field], [Heap.FieldOf]:
//     "elementData", "[3]", "static holder", "Base.value" where a subclass
//     declares the name again). The model keeps references without their
//     fields: the few records an answer shows are read back from the dump,
//     located from a mark Parse keeps every 256 objects (fields.go).
//
// Sizes: see [Parse]. HotSpot's heap walk writes neighbouring objects in
// address order, so the distance between their ids is the first one's size;
// Parse compares those distances over the first objects with the sizes 4-
// and 8-byte references would give to infer -XX:-UseCompressedOops
// ([Options.Oops] overrides it).
//
// A dump cut short (a VM killed, a disk full) parses to the model of its
// complete records, marked [Heap.Partial]; duplicate object ids and classes
// dumped twice are accepted, the first kept, and reported in
// [Heap.Warnings].
//
// What it must not touch: it opens no sockets and knows nothing about VMs,
// the monitor or how a dump was obtained (HotSpot's attach mechanism lives in
// internal/hotspot, Android's HPDS in bridge).
package hprof
