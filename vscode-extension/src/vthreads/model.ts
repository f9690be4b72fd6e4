// Virtual threads as data: strict decoding of the adapter's virtualThreads
// response (docs/dap.md) and the rows the Virtual Threads view shows. No
// vscode here.

import { bool, fieldsOf, SchemaError, str, uint } from '../schema';

export class VirtualThreadsError extends SchemaError {
  constructor(message: string) {
    super(`virtualThreads: ${message}`);
    this.name = 'VirtualThreadsError';
  }
}

export interface VFrame {
  name: string;
  line?: number;
  /** As the adapter sends a stack frame's: the JDK's (and code without source) are "deemphasize". */
  source?: { name?: string; path?: string; sourceReference?: number; presentationHint?: string };
}

export interface VGroup {
  count: number;
  threads: { id: number; name: string }[];
  frames: VFrame[];
}

export interface VPage {
  total: number;
  start: number;
  count: number;
  listed: boolean;
  groups: VGroup[];
}

const E = VirtualThreadsError;

/** Decodes a virtualThreads response body; anything off the schema is an error naming the field. */
export function decodeVirtualThreads(body: unknown): VPage {
  const o = fieldsOf(body, '', ['total', 'start', 'count', 'listed', 'groups'], [], E);
  if (!Array.isArray(o.groups)) {
    throw new E('groups: expected an array');
  }
  return {
    total: uint(o.total, 'total', E),
    start: uint(o.start, 'start', E),
    count: uint(o.count, 'count', E),
    listed: bool(o.listed, 'listed', E),
    groups: o.groups.map((g, i) => {
      const w = `groups[${i}]`;
      const go = fieldsOf(g, w, ['count', 'threads', 'frames'], [], E);
      if (!Array.isArray(go.threads) || !Array.isArray(go.frames)) {
        throw new E(`${w}: threads and frames must be arrays`);
      }
      return {
        count: uint(go.count, `${w}.count`, E),
        threads: go.threads.map((t, j) => {
          const to = fieldsOf(t, `${w}.threads[${j}]`, ['id', 'name'], [], E);
          return { id: uint(to.id, `${w}.threads[${j}].id`, E), name: str(to.name, `${w}.threads[${j}].name`, E) };
        }),
        frames: go.frames.map((f, j) => {
          const fo = fieldsOf(f, `${w}.frames[${j}]`, ['name'], ['line', 'source'], E);
          const out: VFrame = { name: str(fo.name, `${w}.frames[${j}].name`, E) };
          if (fo.line !== undefined) {
            out.line = uint(fo.line, `${w}.frames[${j}].line`, E);
          }
          if (fo.source !== undefined) {
            out.source = fo.source as VFrame['source'];
          }
          return out;
        }),
      };
    }),
  };
}

/** Merges the groups of successive pages: the same stack (frame names and lines) is one group. */
export function mergeGroups(into: VGroup[], page: readonly VGroup[]): VGroup[] {
  const key = (g: VGroup) => g.frames.map((f) => `${f.name}:${f.line ?? ''}`).join('\n');
  const byKey = new Map(into.map((g) => [key(g), g]));
  for (const g of page) {
    const have = byKey.get(key(g));
    if (have) {
      have.count += g.count;
      have.threads = [...have.threads, ...g.threads].slice(0, 20);
    } else {
      const copy = { ...g, threads: [...g.threads] };
      into.push(copy);
      byKey.set(key(g), copy);
    }
  }
  return into.sort((a, b) => b.count - a.count);
}

/**
 * A group's row: how many threads, and where they are: the first frame of
 * the program's own code (a source of its own, not the JDK's deemphasized
 * one) when the top is the JDK's parking, sleeping or waiting.
 */
export function groupLabel(g: VGroup): { label: string; description: string } {
  const n = `${g.count} virtual thread${g.count === 1 ? '' : 's'}`;
  if (g.frames.length === 0) {
    return { label: n, description: 'running (no stack while it runs)' };
  }
  const own =
    g.frames.find((f) => f.source?.path && f.source.presentationHint !== 'deemphasize') ??
    g.frames.find((f) => !/^(VirtualThread|Continuation|LockSupport|Unsafe|AbstractQueuedSynchronizer|System\$1|ForkJoin)[.$]/.test(f.name)) ??
    g.frames[0];
  return { label: n, description: `${own.name}${own.line ? `:${own.line}` : ''}` };
}

/** What the view says above the groups. */
export function summary(p: VPage, loaded: number): string {
  const of = p.listed ? `${p.total} virtual threads` : `${p.total} virtual threads met at events and stops (start the VM's agent with includevirtualthreads=y to see all)`;
  return loaded < p.total ? `${of}; ${loaded} read` : of;
}
