// A JDK 21+ VM's JSON thread dump as the backend's vm/threadDump sends it
// (docs/rpc.md): strict decoding, and the rows the Threads view shows for
// its virtual threads, grouped by stack. No DOM, no vscode.

import { fieldsOf, isObject, SchemaError, str, uint } from '../schema';

export class ThreadDumpError extends SchemaError {
  constructor(message: string) {
    super(`thread dump: ${message}`);
    this.name = 'ThreadDumpError';
  }
}

export interface DumpGroup {
  count: number;
  stack: string[];
  states: Record<string, number>;
  tids: string[];
  carriers: string[];
  blockers: string[];
  mounted: number;
}

export interface ThreadDump {
  id: string;
  time: string;
  runtimeVersion: string;
  platformCount: number;
  virtual: number;
  ungrouped: number;
  groups: DumpGroup[];
}

const E = ThreadDumpError;

function strings(v: unknown, where: string): string[] {
  if (v === undefined) {
    return [];
  }
  if (!Array.isArray(v)) {
    throw new E(`${where}: expected an array`);
  }
  return v.map((s, i) => str(s, `${where}[${i}]`, E));
}

/** Decodes a vm/threadDump result; the platform threads are not read here (the live list has them). */
export function decodeThreadDump(body: unknown): ThreadDump {
  const o = fieldsOf(body, '', ['id', 'platform', 'platformCount', 'virtual', 'groups'], ['processId', 'time', 'runtimeVersion', 'ungrouped'], E);
  if (!Array.isArray(o.groups)) {
    throw new E('groups: expected an array');
  }
  return {
    id: str(o.id, 'id', E),
    time: o.time === undefined ? '' : str(o.time, 'time', E),
    runtimeVersion: o.runtimeVersion === undefined ? '' : str(o.runtimeVersion, 'runtimeVersion', E),
    platformCount: uint(o.platformCount, 'platformCount', E),
    virtual: uint(o.virtual, 'virtual', E),
    ungrouped: o.ungrouped === undefined ? 0 : uint(o.ungrouped, 'ungrouped', E),
    groups: o.groups.map((g, i) => {
      const w = `groups[${i}]`;
      const go = fieldsOf(g, w, ['count', 'stack', 'states', 'tids', 'mounted'], ['carriers', 'blockers'], E);
      if (!isObject(go.states)) {
        throw new E(`${w}.states: expected an object`);
      }
      const states: Record<string, number> = {};
      for (const [k, v] of Object.entries(go.states)) {
        states[k] = uint(v, `${w}.states.${k}`, E);
      }
      return {
        count: uint(go.count, `${w}.count`, E),
        stack: strings(go.stack, `${w}.stack`),
        states,
        tids: strings(go.tids, `${w}.tids`),
        carriers: strings(go.carriers, `${w}.carriers`),
        blockers: strings(go.blockers, `${w}.blockers`),
        mounted: uint(go.mounted, `${w}.mounted`, E),
      };
    }),
  };
}

/** The JDK's own frames a parked virtual thread sits in, passed over to name where it waits. */
const machinery = /^(java\.base\/)?(java\.lang\.VirtualThread|java\.lang\.System\$1|java\.util\.concurrent\.locks\.|jdk\.internal\.|java\.util\.concurrent\.ForkJoin)/;

/** The JDK's modules: a frame outside them is the program's own. */
const jdkModule = /^(java|jdk)\.[a-z.]+\//;

/** A group's line: its count, the first frame of the program's own (else the first past the JDK's parking), its states and what it waits for. */
export function dumpGroupRow(g: DumpGroup): { count: string; where: string; states: string; blocker: string } {
  const own = g.stack.find((f) => !jdkModule.test(f)) ?? g.stack.find((f) => !machinery.test(f)) ?? g.stack[0] ?? '(no stack: running or unmounted)';
  const states = Object.entries(g.states)
    .filter(([k]) => k !== '')
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  const mounted = g.mounted ? `${g.mounted} mounted on ${g.carriers.map((c) => `#${c}`).join(', ')}` : '';
  return {
    count: `${g.count} virtual thread${g.count === 1 ? '' : 's'}`,
    where: own.replace(/^java\.base\//, ''),
    states: [states, mounted].filter((s) => s).join('; '),
    blocker: g.blockers.length ? `waiting for ${g.blockers.join(', ')}` : '',
  };
}
