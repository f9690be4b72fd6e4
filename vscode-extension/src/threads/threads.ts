// Threads as data: normalising the backend's thread lists, state colours, CPU
// times and the "blinkenlights" activity history. No DOM, no vscode.

export interface ThreadInfo {
  id: number;
  name: string;
  /** DDM state name: running, timed-wait, monitor, wait, zombie, initializing, starting, native, vmwait, suspended. */
  state: string;
  suspended: boolean;
  daemon: boolean;
  /** Linux thread id (DDM only). */
  tid?: number;
  /** User / system CPU time in clock ticks (DDM only). */
  utime?: number;
  stime?: number;
}

/** THST numbering (Dalvik), for backends that send numbers. */
const stateByNumber = [
  'zombie',
  'running',
  'timed-wait',
  'monitor',
  'wait',
  'initializing',
  'starting',
  'native',
  'vmwait',
  'suspended',
];

export type StateClass = 'running' | 'waiting' | 'blocked' | 'native' | 'starting' | 'dead' | 'suspended' | 'other';

/** Groups DDM and JDWP state names into the classes the views colour. */
export function stateClass(state: string, suspended = false): StateClass {
  if (suspended) {
    return 'suspended';
  }
  switch (state.toLowerCase()) {
    case 'running':
      return 'running';
    case 'timed-wait':
    case 'sleeping':
    case 'wait':
    case 'vmwait':
      return 'waiting';
    case 'monitor':
      return 'blocked';
    case 'native':
      return 'native';
    case 'initializing':
    case 'starting':
      return 'starting';
    case 'zombie':
      return 'dead';
    case 'suspended':
      return 'suspended';
    default:
      return 'other';
  }
}

/** Colours per state class (CSS), readable on light and dark themes. */
export const stateColors: Record<StateClass, string> = {
  running: '#2ea043',
  waiting: '#d29922',
  blocked: '#f85149',
  native: '#8957e5',
  starting: '#58a6ff',
  dead: '#6e7681',
  suspended: '#1f6feb',
  other: '#8b949e',
};

/** VS Code theme colour ids for the same classes (tree icons). */
export const stateThemeColors: Record<StateClass, string> = {
  running: 'charts.green',
  waiting: 'charts.yellow',
  blocked: 'charts.red',
  native: 'charts.purple',
  starting: 'charts.blue',
  dead: 'disabledForeground',
  suspended: 'charts.blue',
  other: 'foreground',
};

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function optNum(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/**
 * Reads a thread list: `{threads: [...]}` (the `ddmThreads` event, the
 * `vm/threads` result and notification) or a bare array. Entries without an id
 * are skipped.
 */
export function decodeThreads(body: unknown): ThreadInfo[] {
  const list = Array.isArray(body) ? body : isObj(body) && Array.isArray(body.threads) ? body.threads : [];
  const out: ThreadInfo[] = [];
  for (const t of list) {
    if (!isObj(t)) {
      continue;
    }
    const id = optNum(t.id) ?? optNum(t.threadId);
    if (id === undefined) {
      continue;
    }
    const st = t.state ?? t.status;
    const state = typeof st === 'number' ? (stateByNumber[st] ?? `state(${st})`) : typeof st === 'string' ? st : 'unknown';
    out.push({
      id,
      name: typeof t.name === 'string' && t.name !== '' ? t.name : `Thread ${id}`,
      state,
      suspended: t.suspended === true,
      daemon: t.daemon === true,
      tid: optNum(t.tid),
      utime: optNum(t.utime),
      stime: optNum(t.stime),
    });
  }
  return out;
}

/** Clock ticks per second of the CPU times (Linux USER_HZ). */
export const ticksPerSecond = 100;

export function formatCpu(ticks: number | undefined): string {
  if (ticks === undefined) {
    return '—';
  }
  const s = ticks / ticksPerSecond;
  if (s < 60) {
    return `${s.toFixed(2)}s`;
  }
  const m = Math.floor(s / 60);
  return `${m}m${(s - m * 60).toFixed(0).padStart(2, '0')}s`;
}

/** How many updates of history the activity lights keep. */
export const historyLength = 16;

export interface ThreadRow extends ThreadInfo {
  stateClass: StateClass;
  color: string;
  /** CPU ticks used since the previous update (undefined when unknown). */
  cpuDelta?: number;
  /** Activity per update, oldest first, 0 (idle) … 1 (busiest); length historyLength. */
  lights: number[];
  /** The thread appeared in this update. */
  isNew: boolean;
}

/**
 * Keeps the history behind the blinkenlights: each update lights a thread's
 * newest lamp by how much CPU it used since the previous update (or, without
 * CPU times, by whether it is running).
 */
export class ThreadTracker {
  private prev = new Map<number, { cpu?: number; lights: number[] }>();

  update(threads: ThreadInfo[]): ThreadRow[] {
    const next = new Map<number, { cpu?: number; lights: number[] }>();
    const deltas = threads.map((t) => {
      const cpu = t.utime !== undefined || t.stime !== undefined ? (t.utime ?? 0) + (t.stime ?? 0) : undefined;
      const before = this.prev.get(t.id);
      const delta = cpu !== undefined && before?.cpu !== undefined ? Math.max(0, cpu - before.cpu) : undefined;
      return { t, cpu, before, delta };
    });
    const maxDelta = deltas.reduce((m, d) => Math.max(m, d.delta ?? 0), 0);
    const rows = deltas.map(({ t, cpu, before, delta }) => {
      const cls = stateClass(t.state, t.suspended);
      let level: number;
      if (t.suspended) {
        level = 0; // held by a debugger: whatever it used before, it runs no more
      } else if (delta !== undefined) {
        level = delta === 0 ? 0 : Math.max(0.25, delta / Math.max(maxDelta, 1));
      } else {
        level = cls === 'running' ? 1 : 0;
      }
      const lights = [...(before?.lights ?? new Array<number>(historyLength).fill(0)), level].slice(-historyLength);
      next.set(t.id, { cpu, lights });
      return { ...t, stateClass: cls, color: stateColors[cls], cpuDelta: delta, lights, isNew: before === undefined };
    });
    this.prev = next;
    return rows;
  }

  reset(): void {
    this.prev.clear();
  }
}

/** Counts per state class, for the view's summary line. */
export function stateSummary(rows: readonly { stateClass: StateClass }[]): Partial<Record<StateClass, number>> {
  const out: Partial<Record<StateClass, number>> = {};
  for (const r of rows) {
    out[r.stateClass] = (out[r.stateClass] ?? 0) + 1;
  }
  return out;
}
