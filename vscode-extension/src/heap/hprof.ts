// The HPROF views' data: the backend's hprof/summary, hprof/dominators and
// hprof/diff results (docs/rpc.md) decoded and checked, and the sorting and
// filtering of the class histogram. No vscode, no DOM: the webview, the
// extension and the unit tests share it.

export interface ClassRow {
  class: string;
  instances: number;
  bytes: number;
}

export interface HprofSummary {
  path: string;
  format: string;
  objects: number;
  classes: ClassRow[];
  totals: { classes: number; instances: number; bytes: number };
}

export interface DomNode {
  id: number;
  class: string;
  size: number;
  retained: number;
  /** Objects it immediately dominates. */
  children: number;
}

export interface DomLevel {
  /** The object drilled into; undefined at the top (the GC roots). */
  object?: DomNode;
  children: DomNode[];
  more: number;
  reachable: number;
  total: number;
}

export interface DeltaRow {
  class: string;
  instances: number;
  bytes: number;
  oldInstances: number;
  oldBytes: number;
  newInstances: number;
  newBytes: number;
}

export interface HprofDiff {
  path: string;
  base: string;
  classes: DeltaRow[];
}

export class HprofDataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HprofDataError';
  }
}

type Obj = Record<string, unknown>;

function obj(v: unknown, what: string): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new HprofDataError(`${what}: not an object`);
  }
  return v as Obj;
}

function num(o: Obj, k: string, what: string): number {
  const v = o[k];
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    throw new HprofDataError(`${what}: "${k}" is not a number`);
  }
  return v;
}

function str(o: Obj, k: string, what: string): string {
  const v = o[k];
  if (typeof v !== 'string') {
    throw new HprofDataError(`${what}: "${k}" is not a string`);
  }
  return v;
}

function list(o: Obj, k: string, what: string): unknown[] {
  const v = o[k];
  if (!Array.isArray(v)) {
    throw new HprofDataError(`${what}: "${k}" is not a list`);
  }
  return v;
}

function classRow(v: unknown): ClassRow {
  const o = obj(v, 'class');
  return { class: str(o, 'class', 'class'), instances: num(o, 'instances', 'class'), bytes: num(o, 'bytes', 'class') };
}

export function decodeSummary(body: unknown): HprofSummary {
  const o = obj(body, 'hprof/summary');
  const t = obj(o.totals, 'hprof/summary totals');
  return {
    path: str(o, 'path', 'hprof/summary'),
    format: typeof o.format === 'string' ? o.format : '',
    objects: num(o, 'objects', 'hprof/summary'),
    classes: list(o, 'classes', 'hprof/summary').map(classRow),
    totals: { classes: num(t, 'classes', 'totals'), instances: num(t, 'instances', 'totals'), bytes: num(t, 'bytes', 'totals') },
  };
}

function domNode(v: unknown): DomNode {
  const o = obj(v, 'dominator');
  return {
    id: num(o, 'id', 'dominator'),
    class: str(o, 'class', 'dominator'),
    size: num(o, 'size', 'dominator'),
    retained: typeof o.retained === 'number' ? o.retained : 0,
    children: typeof o.children === 'number' ? o.children : 0,
  };
}

export function decodeDominators(body: unknown): DomLevel {
  const o = obj(body, 'hprof/dominators');
  return {
    object: o.object === undefined || o.object === null ? undefined : domNode(o.object),
    children: list(o, 'children', 'hprof/dominators').map(domNode),
    more: typeof o.more === 'number' ? o.more : 0,
    reachable: num(o, 'reachable', 'hprof/dominators'),
    total: num(o, 'total', 'hprof/dominators'),
  };
}

export function decodeDiff(body: unknown): HprofDiff {
  const o = obj(body, 'hprof/diff');
  return {
    path: str(o, 'path', 'hprof/diff'),
    base: str(o, 'base', 'hprof/diff'),
    classes: list(o, 'classes', 'hprof/diff').map((v) => {
      const c = obj(v, 'delta');
      const n = (k: string): number => num(c, k, 'delta');
      return {
        class: str(c, 'class', 'delta'),
        instances: n('instances'),
        bytes: n('bytes'),
        oldInstances: n('oldInstances'),
        oldBytes: n('oldBytes'),
        newInstances: n('newInstances'),
        newBytes: n('newBytes'),
      };
    }),
  };
}

export type SortKey = 'class' | 'instances' | 'bytes';

export interface TableView {
  sort: SortKey;
  descending: boolean;
  filter: string;
}

/**
 * The rows to show: those whose class name contains every word of the filter
 * (case-insensitive; a word may be a regular expression between slashes),
 * sorted by the key (ties by name).
 */
export function viewRows<R extends { class: string; instances: number; bytes: number }>(rows: readonly R[], v: TableView): R[] {
  const match = classFilter(v.filter);
  const out = rows.filter((r) => match(r.class));
  const dir = v.descending ? -1 : 1;
  out.sort((a, b) => {
    let c = 0;
    if (v.sort === 'class') {
      c = a.class < b.class ? -1 : a.class > b.class ? 1 : 0;
    } else {
      // Deltas sort by size of the change.
      c = Math.abs(a[v.sort]) - Math.abs(b[v.sort]) || a[v.sort] - b[v.sort];
    }
    if (c === 0 && v.sort !== 'class') {
      return a.class < b.class ? -1 : a.class > b.class ? 1 : 0;
    }
    return c * dir;
  });
  return out;
}

/** A predicate for the filter text; an invalid /regexp/ matches nothing. */
export function classFilter(filter: string): (name: string) => boolean {
  const words = filter.trim().split(/\s+/).filter(Boolean);
  const tests = words.map((w): ((s: string) => boolean) => {
    if (w.length > 2 && w.startsWith('/') && w.endsWith('/')) {
      try {
        const re = new RegExp(w.slice(1, -1), 'i');
        return (s) => re.test(s);
      } catch {
        return () => false;
      }
    }
    const lw = w.toLowerCase();
    return (s) => s.toLowerCase().includes(lw);
  });
  return (name) => tests.every((t) => t(name));
}

/** Sums rows up (for the filtered total line). */
export function sumRows(rows: readonly { instances: number; bytes: number }[]): { instances: number; bytes: number } {
  let instances = 0;
  let bytes = 0;
  for (const r of rows) {
    instances += r.instances;
    bytes += r.bytes;
  }
  return { instances, bytes };
}

/** "+1,234" / "−56" / "0": a signed count. */
export function signed(n: number, fmt: (n: number) => string = (x) => x.toLocaleString('en-US')): string {
  return n > 0 ? `+${fmt(n)}` : n < 0 ? `−${fmt(-n)}` : fmt(0);
}

/** An object id as hex, as the CLI prints it. */
export function objectId(id: number): string {
  return `0x${id.toString(16)}`;
}
