// Threads as data: strict decoding of the backend's thread lists
// (ddm.ThreadsJSON, docs/rpc.md "Thread"), state colours, CPU times and the
// "blinkenlights" activity history. No DOM, no vscode.

import { bool, fieldsOf, SchemaError, str, uint } from '../schema';

/** One thread (ddm.ThreadJSON). */
export interface ThreadInfo {
  id: number;
  name: string;
  /** One of threadStateNames. */
  state: string;
  suspended: boolean;
  /** DDM only; absent when unknown. */
  daemon?: boolean;
  /** Linux thread id (DDM, or /proc for a JVM on the backend's host). */
  tid?: number;
  /** User / system CPU time in clock ticks (1/100 s). */
  utime?: number;
  stime?: number;
}

/** A VM's thread list (ddm.ThreadsJSON). */
export interface ThreadList {
  /** The monitor's VM id; a stand-alone session's VM address. */
  id: string;
  threads: ThreadInfo[];
  /** What the list lacks and why (a VM without THST). */
  note?: string;
}

/**
 * The values of ThreadJSON.state: ddm.ThreadStateNames(), the DDM states then
 * "unknown" (the VM has not told). Anything else is an error, never a guess.
 */
export const threadStateNames: readonly string[] = [
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
  'unknown',
];

export class ThreadsError extends SchemaError {
  constructor(message: string) {
    super(`threads: ${message}`);
    this.name = 'ThreadsError';
  }
}

export type StateClass = 'running' | 'waiting' | 'blocked' | 'native' | 'starting' | 'dead' | 'suspended' | 'other';

/** Groups the state names into the classes the views colour ("unknown": other). */
export function stateClass(state: string, suspended = false): StateClass {
  if (suspended) {
    return 'suspended';
  }
  switch (state) {
    case 'running':
      return 'running';
    case 'timed-wait':
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

/**
 * Decodes a thread list exactly as ddm.ThreadsJSON defines it (the
 * `ddmThreads` event body, the `vm/threads` result and notification):
 * unknown or missing fields and a state that is not one of threadStateNames
 * (a number, say) are errors naming the field.
 */
export function decodeThreads(body: unknown): ThreadList {
  const o = fieldsOf(body, '', ['id', 'threads'], ['note'], ThreadsError);
  const id = str(o.id, 'id', ThreadsError);
  if (!Array.isArray(o.threads)) {
    throw new ThreadsError(`threads: expected an array, got ${JSON.stringify(o.threads)}`);
  }
  const threads = o.threads.map((t, i): ThreadInfo => {
    const where = `threads[${i}]`;
    const f = fieldsOf(t, where, ['id', 'name', 'state', 'suspended'], ['daemon', 'tid', 'utime', 'stime'], ThreadsError);
    if (typeof f.state !== 'string' || !threadStateNames.includes(f.state)) {
      throw new ThreadsError(`${where}.state: ${JSON.stringify(f.state)} is not one of ${threadStateNames.join(', ')}`);
    }
    const out: ThreadInfo = {
      id: uint(f.id, `${where}.id`, ThreadsError, false),
      name: str(f.name, `${where}.name`, ThreadsError),
      state: f.state,
      suspended: bool(f.suspended, `${where}.suspended`, ThreadsError),
    };
    if (f.daemon !== undefined) {
      out.daemon = bool(f.daemon, `${where}.daemon`, ThreadsError);
    }
    for (const k of ['tid', 'utime', 'stime'] as const) {
      if (f[k] !== undefined) {
        out[k] = uint(f[k], `${where}.${k}`, ThreadsError);
      }
    }
    return out;
  });
  const list: ThreadList = { id, threads };
  if (o.note !== undefined) {
    list.note = str(o.note, 'note', ThreadsError);
  }
  return list;
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
 * newest lamp by how much CPU it used since the previous update; a thread
 * without CPU times stays dark (its state says nothing of its activity).
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
        // No CPU figures (or none before): activity unknown. JDWP's "running"
        // covers threads idle in native code, so the state is no measure.
        level = 0;
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
