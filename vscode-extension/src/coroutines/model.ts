// Kotlin coroutines as data: strict decoding of the adapter's coroutines
// response (docs/dap.md) and the rows the Coroutines view shows. No vscode
// here.

import { fieldsOf, int, isObject, list, SchemaError, str, uint } from '../schema';

export class CoroutinesError extends SchemaError {
  constructor(message: string) {
    super(`coroutines: ${message}`);
    this.name = 'CoroutinesError';
  }
}

/** Where the list comes from (the answer's "source", shown as it reads). */
export const fromDebugProbes = 'DebugProbes';
export const fromContinuations = 'continuations of stopped threads';
export const fromInstances = "VM's coroutine objects";

export type CoroutineState = 'running' | 'suspended' | 'created';
const states: readonly string[] = ['running', 'suspended', 'created'];

export interface CFrame {
  name: string;
  /** The line; 0 or less when the VM knows none. */
  line?: number;
  /** A DAP Source, as the adapter sent it (its path opens the file). */
  source?: { name?: string; path?: string; sourceReference?: number };
}

export interface Coroutine {
  id: number;
  name: string;
  state: CoroutineState;
  dispatcher?: string;
  threadId?: number;
  frames: CFrame[];
  /** The stack that created it, top first, when asked and DebugProbes recorded it. */
  creationStack?: CFrame[];
}

export interface CPage {
  source: string;
  note?: string;
  total: number;
  start: number;
  count: number;
  coroutines: Coroutine[];
}

const E = CoroutinesError;

function frame(v: unknown, where: string): CFrame {
  const o = fieldsOf(v, where, ['name'], ['line', 'source'], E);
  const f: CFrame = { name: str(o.name, `${where}.name`, E) };
  if (o.line !== undefined) {
    // -1: the VM knows no line there (a frame of a method without line numbers).
    f.line = int(o.line, `${where}.line`, E);
  }
  if (o.source !== undefined) {
    if (!isObject(o.source)) {
      throw new E(`${where}.source: expected a DAP Source object`);
    }
    const s = o.source;
    for (const k of ['name', 'path'] as const) {
      if (s[k] !== undefined) {
        str(s[k], `${where}.source.${k}`, E);
      }
    }
    if (s.sourceReference !== undefined) {
      uint(s.sourceReference, `${where}.source.sourceReference`, E);
    }
    f.source = s as CFrame['source'];
  }
  return f;
}

function coroutine(v: unknown, where: string): Coroutine {
  const o = fieldsOf(v, where, ['id', 'name', 'state', 'frames'], ['dispatcher', 'threadId', 'creationStack'], E);
  const state = str(o.state, `${where}.state`, E);
  if (!states.includes(state)) {
    throw new E(`${where}.state: expected one of ${states.join(', ')}, got ${JSON.stringify(state)}`);
  }
  const c: Coroutine = {
    // An object id of its job may be any 64-bit number: a signed integer within 2^53 is all JSON carries safely.
    id: int(o.id, `${where}.id`, E),
    name: str(o.name, `${where}.name`, E),
    state: state as CoroutineState,
    frames: list(o.frames, `${where}.frames`, frame, E),
  };
  if (o.dispatcher !== undefined) {
    c.dispatcher = str(o.dispatcher, `${where}.dispatcher`, E);
  }
  if (o.threadId !== undefined) {
    c.threadId = uint(o.threadId, `${where}.threadId`, E);
  }
  if (o.creationStack !== undefined) {
    c.creationStack = list(o.creationStack, `${where}.creationStack`, frame, E);
  }
  return c;
}

/** Decodes a coroutines response body; anything off the schema is an error naming the field. */
export function decodeCoroutines(body: unknown): CPage {
  const o = fieldsOf(body, '', ['source', 'total', 'start', 'count', 'coroutines'], ['note'], E);
  const p: CPage = {
    source: str(o.source, 'source', E),
    total: uint(o.total, 'total', E),
    start: uint(o.start, 'start', E),
    count: uint(o.count, 'count', E),
    coroutines: list(o.coroutines, 'coroutines', coroutine, E),
  };
  if (o.note !== undefined) {
    p.note = str(o.note, 'note', E);
  }
  return p;
}

/** A coroutine's row: its name; its state, dispatcher and where it is (its top frame). */
export function coroutineLabel(c: Coroutine): { label: string; description: string } {
  const where = c.frames[0] ? frameText(c.frames[0]) : '';
  return { label: c.name, description: [c.state, c.dispatcher, where].filter((s) => s).join(' · ') };
}

/** A frame as one line of text: its name, and its line when the VM knows it. */
export function frameText(f: CFrame): string {
  return f.line !== undefined && f.line > 0 ? `${f.name}:${f.line}` : f.name;
}

/** The codicon of a coroutine's state. */
export function stateIcon(s: CoroutineState): string {
  return s === 'running' ? 'debug-start' : s === 'suspended' ? 'debug-pause' : 'circle-outline';
}

/** What the view says above the coroutines: how many, and where the list comes from (as the adapter says it). */
export function summary(p: CPage, loaded: number): string {
  const n = `${p.total} coroutine${p.total === 1 ? '' : 's'}`;
  const from =
    p.source === fromDebugProbes
      ? 'from DebugProbes (every coroutine of the VM)'
      : p.source === fromInstances
        ? `from the ${p.source} (every coroutine of the VM, without DebugProbes)`
        : `from the ${p.source} (only those found on them)`;
  const read = loaded < p.total ? `; ${loaded} read` : '';
  return `${n} ${from}${read}`;
}
