// The DDM custom events and requests of a ddmbridge DAP session (dap/ddm.go).
// No vscode: the protocol tests use the same names.

export type DdmKind = 'threads' | 'heapInfo' | 'heapMap';

/** The custom DAP events and requests of a ddmbridge session (dap/ddm.go, dap/doc.go). */
export const dapEvents: Record<string, DdmKind> = {
  ddmThreads: 'threads',
  ddmHeapInfo: 'heapInfo',
  ddmHeapMap: 'heapMap',
};
export const dapRequests = {
  /** {threads?, heapInfo?, heapMap?: boolean}: turn the events on or off. */
  updates: 'ddmUpdates',
  /** Run a GC; ddmHeapInfo / ddmHeapMap follow when on. */
  gc: 'ddmGC',
  /** {} → {id}: the monitor's id of the session's VM, "" without a monitor (read it through the control API then). */
  vm: 'ddmVM',
} as const;
