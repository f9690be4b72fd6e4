// Package simvm is a simulated DDM-speaking VM for tests and demos: it accepts a
// debugger's (or monitor's) JDWP handshake and answers DDM chunks the way an
// Android VM does, following shared/reference/ddm.md byte for byte.
//
// Two profiles:
//
//   - ProfileART follows what shipped: extended HELO (all 12 fields), FEAT,
//     APNM after HELO, the real THST layout with states 0–4, unsolicited ids
//     0x80000001…, and no reply at all where a modern ART handler returns
//     nothing (adbconnection behaviour).
//   - ProfileDraft follows the 2007 design: the short HELO, THST with a u4
//     count and state/suspended per thread (states 1–8), periodic THST pushes
//     at the interval the server asks for, DBGD acknowledged, large chunks
//     ZLIB-compressed, unsolicited ids 0x10000000…, and an empty reply for
//     anything without an answer (unknown chunks included).
//
// Standalone, the VM has synthetic threads that change state, are born, die
// and get renamed, and a heap that grows and is collected; after each GC it
// sends the HPIF and heap-segment dumps the server enabled. It answers the few
// core JDWP commands a monitor needs (VirtualMachine.Version, IDSizes,
// AllThreads, Capabilities, Suspend, Resume, Dispose, Exit,
// ThreadReference.Name) and NOT_IMPLEMENTED to anything else.
//
// With Options.JVM it sits in front of a real JVM started with a JDWP agent:
// non-DDM packets pass through unchanged in both directions, DDM is answered
// by the simulator, and the simulated threads are the JVM's real threads.
//
// It owns its listening socket and nothing else in the project.
package simvm
