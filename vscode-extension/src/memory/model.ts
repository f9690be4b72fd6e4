// The memory view's data, free of vscode: the adapter's answers and events
// (memoryView, instanceCounts, memoryCounts, instances, allocations;
// docs/memory.md, dap/ext/memory.go) read strictly through the schema helpers
// as the DDM and HPROF views read theirs, and what the view does with them —
// filter, "only changed", sort, labels.

import { at, bool, fieldsOf, int, list, str, uint } from '../schema';

/** One class as instanceCounts and memoryCounts give it. */
export interface ClassCount {
  name: string;
  instances: number;
  delta: number;
}

/** The body of instanceCounts and of the memoryCounts event. */
export interface CountsBody {
  classes: ClassCount[];
  complete: boolean;
}

/** One allocation record (allocations). */
export interface Allocation {
  class: string;
  size: number;
  /** The VM's (DDM) id of the allocating thread. */
  thread: number;
  /** Its name; absent when the VM has not named it (yet). */
  threadName?: string;
  frames: AllocSite[];
}

export interface AllocSite {
  class: string;
  method: string;
  file?: string;
  line: number;
}

/** What the VM can give the view (the memoryView answer). */
export interface MemoryViewInfo {
  canCount: boolean;
  canTrackAllocations: boolean;
  /** The VM is ddmbridge's simulated one: its allocation records are made up. */
  simulated: boolean;
}

/** A page of a class's instances (the instances answer): listed with variables. */
export interface InstancesPage {
  /** The instances listed (at most 100,000). */
  total: number;
  /** The class has more than listed (for new ones: a listing compared was cut). */
  truncated: boolean;
  variablesReference: number;
}

/** The allocations answer. */
export interface AllocationsBody {
  enabled: boolean;
  allocations: Allocation[];
}

/** An answer or event of the adapter that does not follow its schema. */
export class MemoryDataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MemoryDataError';
  }
}

const E = MemoryDataError;

function fields(v: unknown, where: string, required: readonly string[], optional: readonly string[] = []): Record<string, unknown> {
  return fieldsOf(v, where, required, optional, E);
}

function classCount(v: unknown, where: string): ClassCount {
  const o = fields(v, where, ['name', 'instances', 'delta']);
  return { name: str(o.name, at(where, 'name'), E), instances: uint(o.instances, at(where, 'instances'), E), delta: int(o.delta, at(where, 'delta'), E) };
}

/** The body of instanceCounts, or of a memoryCounts event (where names which). */
export function decodeCounts(body: unknown, where: 'instanceCounts' | 'memoryCounts'): CountsBody {
  const o = fields(body, where, ['classes', 'complete']);
  return { classes: list(o.classes, at(where, 'classes'), classCount, E), complete: bool(o.complete, at(where, 'complete'), E) };
}

export function decodeMemoryView(body: unknown): MemoryViewInfo {
  const w = 'memoryView';
  const o = fields(body, w, ['canCount', 'canTrackAllocations'], ['simulated']);
  return {
    canCount: bool(o.canCount, at(w, 'canCount'), E),
    canTrackAllocations: bool(o.canTrackAllocations, at(w, 'canTrackAllocations'), E),
    simulated: o.simulated !== undefined && bool(o.simulated, at(w, 'simulated'), E),
  };
}

export function decodeInstances(body: unknown): InstancesPage {
  const w = 'instances';
  const o = fields(body, w, ['total', 'variablesReference'], ['truncated']);
  return {
    total: uint(o.total, at(w, 'total'), E),
    truncated: o.truncated !== undefined && bool(o.truncated, at(w, 'truncated'), E),
    variablesReference: uint(o.variablesReference, at(w, 'variablesReference'), E),
  };
}

function allocSite(v: unknown, where: string): AllocSite {
  const o = fields(v, where, ['class', 'method', 'line'], ['file']);
  const f: AllocSite = { class: str(o.class, at(where, 'class'), E), method: str(o.method, at(where, 'method'), E), line: int(o.line, at(where, 'line'), E) };
  if (o.file !== undefined) {
    f.file = str(o.file, at(where, 'file'), E);
  }
  return f;
}

function allocation(v: unknown, where: string): Allocation {
  const o = fields(v, where, ['class', 'size', 'thread', 'frames'], ['threadName']);
  const a: Allocation = {
    class: str(o.class, at(where, 'class'), E),
    size: uint(o.size, at(where, 'size'), E),
    thread: uint(o.thread, at(where, 'thread'), E),
    frames: list(o.frames, at(where, 'frames'), allocSite, E),
  };
  if (o.threadName !== undefined) {
    a.threadName = str(o.threadName, at(where, 'threadName'), E);
  }
  return a;
}

export function decodeAllocations(body: unknown): AllocationsBody {
  const w = 'allocations';
  const o = fields(body, w, ['enabled', 'allocations']);
  return { enabled: bool(o.enabled, at(w, 'enabled'), E), allocations: list(o.allocations, at(w, 'allocations'), allocation, E) };
}

export type SortKey = 'instances' | 'delta' | 'name';

export interface TableOptions {
  /** A glob (* ?) or a substring of class names; smart case. */
  filter: string;
  onlyChanged: boolean;
  sort: SortKey;
}

/** Whether a class name matches filter as the adapter's instanceCounts filter does. */
export function matches(name: string, filter: string): boolean {
  const f = filter.trim();
  if (!f) {
    return true;
  }
  const fold = f.toLowerCase() === f;
  const n = fold ? name.toLowerCase() : name;
  if (/[*?]/.test(f)) {
    const re = new RegExp(`^${f.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
    return re.test(n);
  }
  return n.includes(f);
}

/** The rows the table shows. */
export function tableRows(classes: ClassCount[], o: TableOptions): ClassCount[] {
  const rows = classes.filter((c) => matches(c.name, o.filter) && (!o.onlyChanged || c.delta !== 0));
  const by: Record<SortKey, (a: ClassCount, b: ClassCount) => number> = {
    instances: (a, b) => b.instances - a.instances || a.name.localeCompare(b.name),
    delta: (a, b) => Math.abs(b.delta) - Math.abs(a.delta) || b.delta - a.delta || a.name.localeCompare(b.name),
    name: (a, b) => a.name.localeCompare(b.name),
  };
  return rows.sort(by[o.sort]);
}

/** "+1,000", "-3", "" for no change. */
export function deltaText(d: number): string {
  if (d === 0) {
    return '';
  }
  return `${d > 0 ? '+' : '−'}${Math.abs(d).toLocaleString('en-US')}`;
}

/** The description of a class row: "1,250  +1,000". */
export function countText(c: ClassCount): string {
  const d = deltaText(c.delta);
  return `${c.instances.toLocaleString('en-US')}${d ? `  ${d}` : ''}`;
}

/** The allocating thread's name, or "thread N" when the VM has not named it. */
export function threadText(a: Allocation): string {
  return a.threadName || `thread ${a.thread}`;
}

/** The description of an allocation row: "1,040 bytes · main". */
export function allocText(a: Allocation): string {
  return `${a.size.toLocaleString('en-US')} bytes · ${threadText(a)}`;
}

/** A frame as a Java stack trace writes it: "com.example.Worker.work(Worker.java:12)". */
export function frameText(f: AllocSite): string {
  let where = 'Unknown Source';
  if (f.line === -2) {
    where = 'Native Method';
  } else if (f.file && f.line >= 0) {
    where = `${f.file}:${f.line}`;
  } else if (f.file) {
    where = f.file;
  }
  return `${f.class}.${f.method}(${where})`;
}

/** The source file a frame names, searched in the workspace: "com/example/Worker.java" for class com.example.Worker. */
export function frameSourceGlob(f: AllocSite): string | undefined {
  if (!f.file) {
    return undefined;
  }
  const pkg = f.class.includes('.') ? f.class.slice(0, f.class.lastIndexOf('.')).replace(/\./g, '/') : '';
  return `**/${pkg ? `${pkg}/` : ''}${f.file}`;
}

/** The classes the view shows first (counted first at the next stop). */
export function shownNames(rows: ClassCount[], max = 50): string[] {
  return rows.slice(0, max).map((c) => c.name);
}

/** What the view's title says of the counts. */
export interface CountsState {
  /** The VM is stopped. */
  stopped: boolean;
  /** Classes in the table. */
  classes: number;
  /** They were counted at this stop (false: at an earlier one). */
  counted: boolean;
  /** All are (false: the shown ones first, the rest on their way). */
  complete: boolean;
  /** Counts are taken at every stop (the view visible, countAtEveryStop on). */
  auto: boolean;
}

/** The title's first part: "1,250 classes", "… (counting…)", "counts of an earlier stop: Count Instances Now". */
export function countsTitle(s: CountsState): string {
  const n = `${s.classes.toLocaleString('en-US')} classes`;
  if (!s.stopped) {
    return s.classes ? `running: ${n} of the previous stop` : '';
  }
  if (s.counted) {
    return s.complete ? n : `${n} (counting…)`;
  }
  if (s.auto) {
    return s.classes ? `${n} of the previous stop (counting…)` : 'counting…';
  }
  return s.classes ? `${n} of an earlier stop: Count Instances Now` : 'not counted: Count Instances Now';
}

/** The note under a class's instances when the adapter listed only some (instances' truncated). */
export function truncatedNote(fresh: boolean): string {
  return fresh
    ? 'The class has more than 100,000 instances: some listed as new may be older ones.'
    : 'The first 100,000 instances are listed; the class has more.';
}
