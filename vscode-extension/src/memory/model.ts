// The memory view's data, free of vscode: the rows of the class table as the
// adapter sends them (instanceCounts, memoryCounts; docs/memory.md), and what
// the view does with them — filter, "only changed", sort, labels.

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
  /** The VM said it cannot count (canCount false): no counts will come. */
  cannotCount?: boolean;
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
  if (s.cannotCount) {
    return 'cannot count: the VM cannot list instances';
  }
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
