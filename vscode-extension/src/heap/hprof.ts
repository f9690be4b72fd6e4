// The HPROF views' data: the backend's hprof/summary, hprof/dominators and
// hprof/diff results and `ddmbridge hprof --json`'s path — the one HPROF
// schema of ddm/hprof/view.go (docs/rpc.md) — decoded strictly, and the
// sorting and filtering of the class histogram. No vscode, no DOM: the
// webview, the extension and the unit tests share it. The unit tests decode
// test/fixtures/hprof-results.json, which Go writes from the schema's types.

import { at, fieldsOf, str, uint } from '../schema';

export interface ClassRow {
  class: string;
  instances: number;
  bytes: number;
}

export interface Totals {
  classes: number;
  instances: number;
  bytes: number;
}

export interface HprofSummary {
  path: string;
  format: string;
  idSize: number;
  timestamp: string;
  android: boolean;
  heaps: string[];
  objects: number;
  roots: number;
  unresolved: number;
  /** The reference width sizes assume: compressed, wide; auto where it does not apply. */
  oops: string;
  /** The dump is cut short: the figures cover its complete records. */
  partial: boolean;
  warnings: string[];
  classes: ClassRow[];
  totals: Totals;
  /** From one pass over the file without a model (hprof/summary "stream"): roots as listed, unresolved not known. */
  streamed: boolean;
}

/** An hprof/progress notification: how far the work on a dump is. */
export interface HprofProgress {
  path: string;
  /** histogram: the streamed pass; parsing: the model; dominators: the dominator tree (no byte count). */
  phase: 'histogram' | 'parsing' | 'dominators';
  read: number;
  size: number;
}

export function decodeProgress(body: unknown): HprofProgress {
  const w = 'hprof/progress';
  const o = fields(body, w, ['path', 'phase', 'read', 'size']);
  const phase = str(o.phase, at(w, 'phase'), E);
  if (phase !== 'histogram' && phase !== 'parsing' && phase !== 'dominators') {
    throw new E(`${w}.phase: ${JSON.stringify(phase)} is not one of histogram, parsing, dominators`);
  }
  return { path: str(o.path, at(w, 'path'), E), phase, read: count(o.read, at(w, 'read')), size: count(o.size, at(w, 'size')) };
}

export interface DomNode {
  id: number;
  /** The class name; a class object is named after its class: "class com.acme.Leak". */
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
  /** Changed classes left out by a limit. */
  more: number;
  totals: { old: Totals; new: Totals };
}

export interface PathStep {
  id: number;
  class: string;
  size: number;
  /** The root kind, on the first step. */
  root?: string;
  /** The root's thread and frame, where the dump says. */
  rootDetail?: string;
  /** How the previous step holds this one, where not a field or element: "<class>", "<loader>", "<defined class>". */
  via?: string;
  /**
   * The field or element of the referrer that holds this one, read back from the dump: "elementData", "[3]",
   * "static holder", "Base.value" (a field a subclass declares again), "<loader>" (a class object's slot).
   */
  field?: string;
  /** How many of the referrer's fields or elements hold it, where more than one does (field names the first). */
  fieldCount?: number;
}

export interface HprofPath {
  object: number;
  /** Objects on the whole path; 0: not reachable. */
  length: number;
  /** Root first; with elided, the first elided.after steps, then the last ones. */
  steps: PathStep[];
  elided?: { after: number; count: number; classes: { class: string; count: number }[] };
}

/** One object of a merged path tree (hprof.PathNodeJSON). */
export interface PathNode extends PathStep {
  /** Target objects whose shortest path runs through it, itself included. */
  targets: number;
  /** It is one of the targets. */
  target: boolean;
  /** A chain of objects left out between it and its children. */
  elided?: { count: number; classes: { class: string; count: number }[] };
  children: PathNode[];
  /** Children left out by the tree's bound. */
  more: number;
}

/** hprof/paths: the shortest paths from the GC roots to a set of objects, merged (hprof.PathsJSON). */
export interface HprofPaths {
  path: string;
  /** A class name, or an object's label and id. */
  target: string;
  objects: number;
  /** Of them, those a GC root reaches. */
  reached: number;
  roots: PathNode[];
  more: number;
}

/** An object in a listing (hprof.Object, hprof.PathStep). */
export interface ObjectRow {
  id: number;
  class: string;
  size: number;
  retained: number;
  root?: string;
  rootDetail?: string;
  via?: string;
  /** Among incoming references: the referrer's field or element that holds the object (PathStep.field). */
  field?: string;
  fieldCount?: number;
}

/** hprof/incoming: a page of the objects that refer to one (hprof.IncomingJSON). */
export interface HprofIncoming {
  path: string;
  object: ObjectRow;
  total: number;
  offset: number;
  referrers: ObjectRow[];
  /** For a class object: the instances it is the class of. */
  instances: number;
}

/** hprof/instances: a page of a class's instances (hprof.InstancesJSON). */
export interface HprofInstances {
  path: string;
  class: string;
  total: number;
  offset: number;
  objects: ObjectRow[];
}

/** hprof/retained: each class's retained size as a set (hprof.RetainedJSON). */
export interface HprofRetained {
  path: string;
  classes: { class: string; retained: number }[];
}

export class HprofDataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HprofDataError';
  }
}

const E = HprofDataError;

function fields(v: unknown, where: string, required: readonly string[], optional: readonly string[] = []): Record<string, unknown> {
  return fieldsOf(v, where, required, optional, E);
}

function count(v: unknown, where: string): number {
  return uint(v, where, E);
}

/** An object id: addresses may pass 2^53 and lose their low bits. */
function id(v: unknown, where: string): number {
  return uint(v, where, E, false);
}

/** A signed integer (a delta). */
function int(v: unknown, where: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
    throw new E(`${where}: expected an integer, got ${JSON.stringify(v) ?? 'nothing'}`);
  }
  return v;
}

function list<T>(v: unknown, where: string, item: (v: unknown, where: string) => T): T[] {
  if (!Array.isArray(v)) {
    throw new E(`${where}: expected an array, got ${JSON.stringify(v) ?? 'nothing'}`);
  }
  return v.map((x, i) => item(x, `${where}[${i}]`));
}

function classRow(v: unknown, where: string): ClassRow {
  const o = fields(v, where, ['class', 'instances', 'bytes']);
  return { class: str(o.class, at(where, 'class'), E), instances: count(o.instances, at(where, 'instances')), bytes: count(o.bytes, at(where, 'bytes')) };
}

function totals(v: unknown, where: string): Totals {
  const o = fields(v, where, ['classes', 'instances', 'bytes']);
  return { classes: count(o.classes, at(where, 'classes')), instances: count(o.instances, at(where, 'instances')), bytes: count(o.bytes, at(where, 'bytes')) };
}

/** Decodes hprof/summary (hprof.SummaryJSON) exactly: an unknown or missing field is an error naming it. */
export function decodeSummary(body: unknown): HprofSummary {
  const w = 'hprof/summary';
  const o = fields(body, w, ['path', 'format', 'idSize', 'timestamp', 'android', 'heaps', 'objects', 'roots', 'unresolved', 'oops', 'partial', 'warnings', 'classes', 'totals'], ['streamed']);
  if (o.streamed === undefined) {
    o.streamed = false;
  }
  for (const k of ['android', 'partial', 'streamed']) {
    if (typeof o[k] !== 'boolean') {
      throw new E(`${w}.${k}: expected a boolean, got ${JSON.stringify(o[k])}`);
    }
  }
  const oops = str(o.oops, at(w, 'oops'), E);
  if (!['auto', 'compressed', 'wide'].includes(oops)) {
    throw new E(`${w}.oops: ${JSON.stringify(oops)} is not one of auto, compressed, wide`);
  }
  return {
    path: str(o.path, at(w, 'path'), E),
    format: str(o.format, at(w, 'format'), E),
    idSize: count(o.idSize, at(w, 'idSize')),
    timestamp: str(o.timestamp, at(w, 'timestamp'), E),
    android: o.android as boolean,
    heaps: list(o.heaps, at(w, 'heaps'), (v, where) => str(v, where, E)),
    objects: count(o.objects, at(w, 'objects')),
    roots: count(o.roots, at(w, 'roots')),
    unresolved: count(o.unresolved, at(w, 'unresolved')),
    oops,
    partial: o.partial as boolean,
    warnings: list(o.warnings, at(w, 'warnings'), (v, where) => str(v, where, E)),
    classes: list(o.classes, at(w, 'classes'), classRow),
    totals: totals(o.totals, at(w, 'totals')),
    streamed: o.streamed as boolean,
  };
}

function domNode(v: unknown, where: string): DomNode {
  // retained is left out of an object's JSON when 0 (hprof.Object).
  const o = fields(v, where, ['id', 'class', 'size', 'children'], ['retained']);
  return {
    id: id(o.id, at(where, 'id')),
    class: str(o.class, at(where, 'class'), E),
    size: count(o.size, at(where, 'size')),
    retained: o.retained === undefined ? 0 : count(o.retained, at(where, 'retained')),
    children: count(o.children, at(where, 'children')),
  };
}

/** Decodes hprof/dominators (hprof.DominatorsJSON) exactly. */
export function decodeDominators(body: unknown): DomLevel {
  const w = 'hprof/dominators';
  const o = fields(body, w, ['path', 'children', 'more', 'reachable', 'total'], ['object']);
  str(o.path, at(w, 'path'), E);
  return {
    object: o.object === undefined ? undefined : domNode(o.object, at(w, 'object')),
    children: list(o.children, at(w, 'children'), domNode),
    more: count(o.more, at(w, 'more')),
    reachable: count(o.reachable, at(w, 'reachable')),
    total: count(o.total, at(w, 'total')),
  };
}

/** Decodes hprof/diff (hprof.DiffJSON) exactly; each delta must be new − old. */
export function decodeDiff(body: unknown): HprofDiff {
  const w = 'hprof/diff';
  const o = fields(body, w, ['path', 'base', 'classes', 'totals'], ['more']);
  const t = fields(o.totals, at(w, 'totals'), ['old', 'new']);
  return {
    path: str(o.path, at(w, 'path'), E),
    base: str(o.base, at(w, 'base'), E),
    classes: list(o.classes, at(w, 'classes'), (v, where): DeltaRow => {
      const c = fields(v, where, ['class', 'instances', 'bytes', 'oldInstances', 'oldBytes', 'newInstances', 'newBytes']);
      const n = (k: string): number => count(c[k], at(where, k));
      const row = {
        class: str(c.class, at(where, 'class'), E),
        instances: int(c.instances, at(where, 'instances')),
        bytes: int(c.bytes, at(where, 'bytes')),
        oldInstances: n('oldInstances'),
        oldBytes: n('oldBytes'),
        newInstances: n('newInstances'),
        newBytes: n('newBytes'),
      };
      if (row.instances !== row.newInstances - row.oldInstances || row.bytes !== row.newBytes - row.oldBytes) {
        throw new E(`${where}: the deltas are not new − old`);
      }
      return row;
    }),
    more: o.more === undefined ? 0 : count(o.more, at(w, 'more')),
    totals: { old: totals(t.old, at(w, 'totals.old')), new: totals(t.new, at(w, 'totals.new')) },
  };
}

/** A PathStep's optional strings. */
const stepKeys = ['root', 'rootDetail', 'via', 'field'] as const;

/** Decodes a path from a GC root (hprof.Path) exactly; steps and gap must add up to its length. */
export function decodePath(body: unknown): HprofPath {
  const w = 'path';
  const o = fields(body, w, ['object', 'length', 'steps'], ['elided']);
  const out: HprofPath = {
    object: id(o.object, at(w, 'object')),
    length: count(o.length, at(w, 'length')),
    steps: list(o.steps, at(w, 'steps'), (v, where): PathStep => {
      const s = fields(v, where, ['id', 'class', 'size'], [...stepKeys, 'fieldCount', 'retained']);
      const step: PathStep = { id: id(s.id, at(where, 'id')), class: str(s.class, at(where, 'class'), E), size: count(s.size, at(where, 'size')) };
      for (const k of stepKeys) {
        if (s[k] !== undefined) {
          step[k] = str(s[k], at(where, k), E);
        }
      }
      if (s.fieldCount !== undefined) {
        step.fieldCount = count(s.fieldCount, at(where, 'fieldCount'));
      }
      return step;
    }),
  };
  let n = out.steps.length;
  if (o.elided !== undefined) {
    const where = at(w, 'elided');
    const g = fields(o.elided, where, ['after', 'count', 'classes']);
    const e = {
      after: count(g.after, at(where, 'after')),
      count: count(g.count, at(where, 'count')),
      classes: list(g.classes, at(where, 'classes'), (v, cw) => {
        const c = fields(v, cw, ['class', 'count']);
        return { class: str(c.class, at(cw, 'class'), E), count: count(c.count, at(cw, 'count')) };
      }),
    };
    if (e.after > out.steps.length || e.count === 0) {
      throw new E(`${where}: a gap of ${e.count} after step ${e.after} does not fit ${out.steps.length} steps`);
    }
    out.elided = e;
    n += e.count;
  }
  if (n !== out.length) {
    throw new E(`${w}: ${n} objects in steps and gap, length says ${out.length}`);
  }
  return out;
}

/** An object row: hprof.Object, with a PathStep's root, via and field where given. */
function objectRow(v: unknown, where: string, extra: readonly string[] = []): { row: ObjectRow; o: Record<string, unknown> } {
  const o = fields(v, where, ['id', 'class', 'size'], ['retained', ...stepKeys, 'fieldCount', ...extra]);
  const row: ObjectRow = {
    id: id(o.id, at(where, 'id')),
    class: str(o.class, at(where, 'class'), E),
    size: count(o.size, at(where, 'size')),
    retained: o.retained === undefined ? 0 : count(o.retained, at(where, 'retained')),
  };
  for (const k of stepKeys) {
    if (o[k] !== undefined) {
      row[k] = str(o[k], at(where, k), E);
    }
  }
  if (o.fieldCount !== undefined) {
    row.fieldCount = count(o.fieldCount, at(where, 'fieldCount'));
  }
  return { row, o };
}

function classCounts(v: unknown, where: string): { class: string; count: number }[] {
  return list(v, where, (x, cw) => {
    const c = fields(x, cw, ['class', 'count']);
    return { class: str(c.class, at(cw, 'class'), E), count: count(c.count, at(cw, 'count')) };
  });
}

function pathNode(v: unknown, where: string, above: number): PathNode {
  const { row, o } = objectRow(v, where, ['targets', 'target', 'elided', 'children', 'more']);
  for (const k of ['targets', 'children', 'more']) {
    if (o[k] === undefined) {
      throw new E(`${at(where, k)}: missing`);
    }
  }
  if (o.target !== undefined && typeof o.target !== 'boolean') {
    throw new E(`${at(where, 'target')}: expected a boolean, got ${JSON.stringify(o.target)}`);
  }
  const n: PathNode = { id: row.id, class: row.class, size: row.size, targets: count(o.targets, at(where, 'targets')), target: o.target === true, children: [], more: count(o.more, at(where, 'more')) };
  for (const k of stepKeys) {
    if (row[k] !== undefined) {
      n[k] = row[k];
    }
  }
  if (row.fieldCount !== undefined) {
    n.fieldCount = row.fieldCount;
  }
  if (n.targets === 0 || n.targets > above) {
    throw new E(`${where}: ${n.targets} targets below it, ${above} above`);
  }
  if (o.elided !== undefined) {
    const g = fields(o.elided, at(where, 'elided'), ['count', 'classes']);
    n.elided = { count: count(g.count, at(where, 'elided.count')), classes: classCounts(g.classes, at(where, 'elided.classes')) };
  }
  n.children = list(o.children, at(where, 'children'), (c, cw) => pathNode(c, cw, n.targets));
  const below = n.children.reduce((s, c) => s + c.targets, 0) + (n.target ? 1 : 0);
  if (below > n.targets || (n.more === 0 && below !== n.targets)) {
    throw new E(`${where}: ${n.targets} targets, its children and itself ${below}`);
  }
  return n;
}

/** Decodes hprof/paths (hprof.PathsJSON) exactly; targets must add up down the tree. */
export function decodePaths(body: unknown): HprofPaths {
  const w = 'hprof/paths';
  const o = fields(body, w, ['path', 'target', 'objects', 'reached', 'roots', 'more']);
  const out: HprofPaths = {
    path: str(o.path, at(w, 'path'), E),
    target: str(o.target, at(w, 'target'), E),
    objects: count(o.objects, at(w, 'objects')),
    reached: count(o.reached, at(w, 'reached')),
    roots: [],
    more: count(o.more, at(w, 'more')),
  };
  if (out.reached > out.objects) {
    throw new E(`${w}: ${out.reached} of ${out.objects} objects reached`);
  }
  out.roots = list(o.roots, at(w, 'roots'), (v, where) => pathNode(v, where, out.reached));
  return out;
}

/** Decodes hprof/incoming (hprof.IncomingJSON) exactly. */
export function decodeIncoming(body: unknown): HprofIncoming {
  const w = 'hprof/incoming';
  const o = fields(body, w, ['path', 'object', 'total', 'offset', 'referrers', 'instances']);
  const out: HprofIncoming = {
    path: str(o.path, at(w, 'path'), E),
    object: objectRow(o.object, at(w, 'object')).row,
    total: count(o.total, at(w, 'total')),
    offset: count(o.offset, at(w, 'offset')),
    referrers: list(o.referrers, at(w, 'referrers'), (v, where) => objectRow(v, where).row),
    instances: count(o.instances, at(w, 'instances')),
  };
  if (out.referrers.length > 0 && out.offset + out.referrers.length > out.total) {
    throw new E(`${w}: ${out.referrers.length} referrers from ${out.offset} of ${out.total}`);
  }
  return out;
}

/** Decodes hprof/instances (hprof.InstancesJSON) exactly. */
export function decodeInstances(body: unknown): HprofInstances {
  const w = 'hprof/instances';
  const o = fields(body, w, ['path', 'class', 'total', 'offset', 'objects']);
  const out: HprofInstances = {
    path: str(o.path, at(w, 'path'), E),
    class: str(o.class, at(w, 'class'), E),
    total: count(o.total, at(w, 'total')),
    offset: count(o.offset, at(w, 'offset')),
    objects: list(o.objects, at(w, 'objects'), (v, where) => objectRow(v, where).row),
  };
  if (out.objects.length > 0 && out.offset + out.objects.length > out.total) {
    throw new E(`${w}: ${out.objects.length} objects from ${out.offset} of ${out.total}`);
  }
  return out;
}

/** Decodes hprof/retained (hprof.RetainedJSON) exactly: largest first. */
export function decodeRetained(body: unknown): HprofRetained {
  const w = 'hprof/retained';
  const o = fields(body, w, ['path', 'classes']);
  const classes = list(o.classes, at(w, 'classes'), (v, where) => {
    const c = fields(v, where, ['class', 'retained']);
    return { class: str(c.class, at(where, 'class'), E), retained: count(c.retained, at(where, 'retained')) };
  });
  classes.forEach((c, i) => {
    if (i > 0 && c.retained > classes[i - 1].retained) {
      throw new E(`${w}.classes[${i}]: retains more than classes[${i - 1}]`);
    }
  });
  return { path: str(o.path, at(w, 'path'), E), classes };
}

export type SortKey = 'class' | 'instances' | 'bytes' | 'retained';

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
export function viewRows<R extends { class: string; instances: number; bytes: number; retained?: number }>(rows: readonly R[], v: TableView): R[] {
  const match = classFilter(v.filter);
  const out = rows.filter((r) => match(r.class));
  const dir = v.descending ? -1 : 1;
  // A row without the key (retained sizes not known yet) counts as 0.
  const val = (r: R): number => (v.sort === 'class' ? 0 : (r[v.sort] ?? 0));
  out.sort((a, b) => {
    let c = 0;
    if (v.sort === 'class') {
      c = a.class < b.class ? -1 : a.class > b.class ? 1 : 0;
    } else {
      // Deltas sort by size of the change.
      c = Math.abs(val(a)) - Math.abs(val(b)) || val(a) - val(b);
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
