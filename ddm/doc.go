// Package ddm implements the Dalvik Debug Monitor protocol: the vendor channel
// (JDWP command set 0xC7, command 0x01) that Android VMs use to report threads,
// heaps, allocations and profiling data to a monitor such as DDMS.
//
// What it owns:
//
//   - Chunk framing ([ParseChunks], [AppendChunk]): several chunks per packet,
//     ZLIB-compressed chunks with a bound on what one packet's chunks inflate
//     to ([DefaultMaxInflated]), FAIL as [*FailError].
//   - Bounds on what a VM may make the monitor hold: strings
//     ([MaxStringUnits]) and lists ([MaxListLen]) are checked before they are
//     allocated, the model keeps at most [MaxThreads] threads and a heap map
//     at most [MaxHeapMapBlocks] blocks.
//   - Typed messages for every chunk in shared/reference/ddm.md ([Message],
//     [Encode], [Decode]), in both the 2007 draft layouts and the ones real
//     Dalvik/ART/ddmlib use; THST layout is auto-detected.
//   - Heap maps ([HeapAssembler], [HeapMap]): HPST → HPSG/HPSO… → HPEN (and the
//     native NHST/NHSG/NHEN) assembled, validated, totalled and rendered to PNG
//     ([HeapMap.Image] pixel for unit, [HeapMap.Picture] for people: scaled, with
//     a legend and totals); capture files of heap chunks ([ReadCapture],
//     [DecodeCapture], [WriteSyntheticCapture]) for `ddmbridge bench heap`.
//     HPROF dumps are read by the subpackage ddm/hprof.
//   - A per-VM model ([ClientData]) updated from chunks, safe for concurrent
//     readers, with change notifications.
//   - The server side of the seed's "Server API" ([Client]): handlers per chunk
//     type, requests paired with replies without blocking, timeouts for replies
//     that never come, connected/disconnected notifications.
//
// What it must not touch: it opens no sockets and knows nothing about VM
// discovery, debugger pass-through or DAP. A [Client] rides an existing JDWP
// connection through the small [Transport] interface (a *jdwp.Conn fits it) and
// is fed the VM's 0xC7 command packets by whoever owns that connection. The
// simulated DDM-speaking VM used by tests and the demo lives in ddm/simvm.
//
// Logging goes through zerolog with component "ddm"; the trace kinds are
// "ddm.chunk" (every chunk sent or received) and "ddm.data" (a hex dump of it).
package ddm
