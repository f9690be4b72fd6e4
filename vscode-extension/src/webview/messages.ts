// Messages between the extension and its webviews. Bodies are passed as the
// backend sent them; the webview decodes them with the shared pure modules.

import type { DdmKind } from '../ddmProtocol';

export interface VMRef {
  id: string;
  name: string;
  /** Where the data comes from: a debug session's DDM events or the backend's control API. */
  source: 'session' | 'backend' | 'recording';
}

export type ToWebview =
  | { type: 'vm'; vm: VMRef | null }
  // DDM data of the VM shown (threads, heapInfo, heapMap), as the backend sent it.
  | { type: DdmKind; body: unknown }
  | { type: 'status'; message: string }
  // The Threads view: a JDK 21+ VM's JSON thread dump (vm/threadDump), as sent.
  | { type: 'threadDump'; body: unknown }
  | { type: 'error'; message: string }
  // The heap view's VM speaks no DDM: say so (and offer an HPROF dump).
  | { type: 'noDdm'; message: string }
  // The HPROF editor (hprofView): backend results, as sent.
  | { type: 'summary'; body: unknown }
  | { type: 'dominators'; body: unknown }
  | { type: 'diff'; body: unknown }
  | { type: 'paths'; body: unknown }
  | { type: 'incoming'; body: unknown }
  | { type: 'instances'; body: unknown }
  | { type: 'retained'; body: unknown }
  // hprof/progress notifications for the editor's dump, as sent; stopped: the
  // work was cancelled (by the user: Cancel).
  | { type: 'progress'; body: unknown }
  | { type: 'stopped'; message: string };

export type FromWebview =
  | { type: 'ready' }
  | { type: 'gc' }
  | { type: 'refresh' }
  | { type: 'pickVM' }
  | { type: 'dumpHeap' }
  | { type: 'threadDump' }
  // The HPROF editor: one level of the dominator tree (object absent: the top),
  // the heap map, and a diff against another dump the user picks.
  | { type: 'dominators'; object?: number }
  | { type: 'heapMap' }
  | { type: 'pickBase' }
  // Why an object is alive: the merged paths from the GC roots to a class's
  // instances or to one object, an object's incoming references (a page),
  // a class's instances (a page), the histogram's retained-size column.
  | { type: 'paths'; class?: string; object?: number }
  | { type: 'incoming'; object: number; offset: number }
  | { type: 'instances'; class: string; offset: number }
  | { type: 'retained' }
  // The histogram again (the streamed pass 'ready' starts), after a Cancel
  // stopped it.
  | { type: 'summary' }
  // Stop the reading or parsing of the dump in progress (hprof/cancel).
  | { type: 'cancel' };
