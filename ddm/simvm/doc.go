// Package simvm is a simulated DDM-speaking VM for tests and demos: it accepts a
// debugger's (or monitor's) JDWP handshake and answers DDM chunks the way an
// Android VM does, following shared/reference/ddm.md byte for byte.
//
// Three profiles:
//
//   - ProfileART follows what shipped: extended HELO (all 12 fields), FEAT,
//     APNM after HELO, the real THST layout with states 0–4, unsolicited ids
//     0x80000001…, and no reply at all where a modern ART handler returns
//     nothing (adbconnection behaviour).
//   - ProfileCurrent is ART of API 34–35 as the AOSP sources read today
//     (art adbconnection/, frameworks/base core/java/android/ddm/): what
//     ProfileART does, plus the framework's FEAT strings (view-hierarchy,
//     support_boot_stages), minus the THST and STKL handlers the framework
//     dropped and, of the heap chunks, everything but HPGC: HPIF, HPSG,
//     NHSG, HPDU, HPDS, REAE, REAQ and REAL get no reply, as adbconnection
//     sends none for a chunk without a handler (ART removed their hooks in
//     January 2021, Android 12). Heap dumps come from `am dumpheap` (the
//     simulated device's), as on a real device. Its JDWP agent loads on
//     the first non-DDM packet; VM.NonDDMPackets counts them so tests prove a
//     monitor stays DDM-only.
//   - ProfileDraft follows the 2007 design: the short HELO, THST with a u4
//     count and state/suspended per thread (states 1–8), periodic THST pushes
//     at the interval the server asks for, DBGD acknowledged, large chunks
//     ZLIB-compressed, unsolicited ids 0x10000000…, and an empty reply for
//     anything without an answer (unknown chunks included).
//
// Standalone, the VM has synthetic threads that change state, are born, die
// and get renamed, and a heap that grows and is collected; after each GC it
// sends the HPIF and heap-segment dumps the server enabled. It runs no code,
// so it cannot be debugged, and says so: its VirtualMachine.Version
// description ends with DDMOnlyNote (a monitor lists it as not debuggable,
// jdb's `version` prints it). Its JDWP answers are those of a VM with no
// code (bare.go): the core commands a monitor needs (Version, IDSizes,
// AllThreads, Capabilities, Suspend, Resume, Dispose, Exit, thread names
// and states), what a debugger's attach needs (event requests accepted and
// never fired, ClassesBySignature, ClassPaths, thread groups, its threads'
// classes, no frames), so jdb attaches without an exception, and
// NOT_IMPLEMENTED to the rest.
//
// With Options.JVM it sits in front of a real JVM started with a JDWP agent:
// non-DDM packets pass through unchanged in both directions and DDM is
// answered by the simulator. Its threads are then the JVM's, as ART's agent
// reports its own: every Tick the session reads AllThreads and each thread's
// Name and Status over the same connection, under command ids from
// 0x7E000000 whose replies it keeps to itself, and THCR, THNM and THDE
// follow. THST states are JDWP's (running, timed-wait for sleeping, monitor,
// wait, zombie; JDWP cannot tell native or vmwait), and native tids and CPU
// times come from /proc/PID/task, matched by HotSpot's native thread names,
// when Options.PID is the JVM's process id on Linux; otherwise they are 0.
// The rest is not read from the JVM and stays simulated: the heap and its
// GCs (HPIF, HPSG/HPSO, NHSG, NHGT, allocation records; HotSpot has no heap
// maps to give), STKL stacks (JDWP has frames only of suspended threads),
// the daemon flag (always false), and the profiling and hprof replies.
//
// It owns its listening socket and nothing else in the project.
package simvm
