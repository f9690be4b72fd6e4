// The control API the extension uses, on top of Backend.request. Method names
// and parameters follow docs/rpc.md; they live in one table so a rename in
// the backend is a one-line change here.

import { decodeJDKs, JDK } from '../jdks';
import { decodeJVMs, JavaProcess } from '../jvms';
import { decodeVMs, VMInfo } from '../vms';
import { Backend, BackendError, isMethodNotFound } from './rpc';

export const methods = {
  list: 'vms/list',
  select: 'vms/select',
  threads: 'vm/threads',
  heapInfo: 'vm/heapInfo',
  heapMap: 'vm/heapMap',
  gc: 'vm/gc',
  dumpHeap: 'vm/dumpHeap',
  threadUpdates: 'vm/setThreadUpdates',
  heapUpdates: 'vm/setHeapUpdates',
  status: 'monitor/status',
  dapAddress: 'dap/address',
  jvms: 'jvms/list',
  jdks: 'jdks/list',
  threadDump: 'vm/threadDump',
  hprofSummary: 'hprof/summary',
  hprofDominators: 'hprof/dominators',
  hprofHeapMap: 'hprof/heapMap',
  hprofDiff: 'hprof/diff',
  hprofPaths: 'hprof/paths',
  hprofIncoming: 'hprof/incoming',
  hprofInstances: 'hprof/instances',
  hprofRetained: 'hprof/retained',
  hprofCancel: 'hprof/cancel',
  debugAddress: 'vm/debugAddress',
  checkConfig: 'dap/checkConfig',
} as const;

export class ControlApi {
  constructor(readonly backend: Backend) {}

  /** monitor/status: where the current-VM port listens, what is scanned. */
  async status(): Promise<{ currentAddress?: string; scan?: string[]; vms?: number }> {
    const r = await this.backend.request<Record<string, unknown>>(methods.status, {});
    return {
      currentAddress: typeof r?.currentAddress === 'string' ? r.currentAddress : undefined,
      scan: Array.isArray(r?.scan) ? (r.scan as string[]) : undefined,
      vms: typeof r?.vms === 'number' ? r.vms : undefined,
    };
  }

  async listVMs(): Promise<VMInfo[]> {
    return decodeVMs(await this.backend.request(methods.list, {}));
  }

  /** jvms/list: the local Java processes, attachable or not, for the process picker. */
  async listJVMs(): Promise<JavaProcess[]> {
    return decodeJVMs(await this.backend.request(methods.jvms, {}));
  }

  /** jdks/list: the JDKs installed on the backend's host, for the javaHome picker. */
  async listJDKs(): Promise<JDK[]> {
    return decodeJDKs(await this.backend.request(methods.jdks, {}));
  }

  /** vm/threadDump: a local HotSpot JDK 21+ VM's JSON thread dump, virtual threads grouped by stack (decoded by the view). */
  async threadDump(id: string): Promise<unknown> {
    return this.backend.request(methods.threadDump, { id });
  }

  /**
   * dap/checkConfig: the adapter's own validation of a launch or attach
   * configuration. Resolves when it can be debugged; rejects with the
   * backend's words (JSON-RPC "invalid params") when not.
   */
  async checkConfig(config: { request: string } & Record<string, unknown>): Promise<void> {
    await this.backend.request(methods.checkConfig, { request: config.request, config });
  }

  /** vm/debugAddress: the monitor port where a debugger reaches VM id ("current": the current-VM port). */
  async debugAddress(id: string): Promise<{ id: string; hostName: string; port: number }> {
    const r = await this.backend.request<Record<string, unknown>>(methods.debugAddress, { id });
    if (typeof r?.id !== 'string' || typeof r.hostName !== 'string' || typeof r.port !== 'number' || !Number.isInteger(r.port) || r.port <= 0) {
      throw new Error(`vm/debugAddress: unexpected answer ${JSON.stringify(r)}`);
    }
    return { id: r.id, hostName: r.hostName, port: r.port };
  }

  async selectVM(id: string): Promise<void> {
    await this.backend.request(methods.select, { id });
  }

  /** The vm/threads result as sent (ddm.ThreadsJSON): decoded once, by the view that renders it (threads/threads). */
  async threads(id: string): Promise<unknown> {
    return this.backend.request(methods.threads, { id });
  }

  /** The vm/heapInfo result as sent (ddm.HeapInfoJSON): decoded once, by the view (heap/heapinfo). */
  async heapInfo(id: string): Promise<unknown> {
    return this.backend.request(methods.heapInfo, { id });
  }

  /** The vm/heapMap result as sent (ddm.HeapMapJSON, decoded by heap/heapmap in the view); gc runs a GC first for a fresh map. */
  async heapMap(id: string, gc: boolean): Promise<unknown> {
    return this.backend.request(methods.heapMap, { id, gc }, 30_000);
  }

  async gc(id: string): Promise<void> {
    await this.backend.request(methods.gc, { id }, 30_000);
  }

  /**
   * vm/dumpHeap: has the backend write an HPROF dump of the VM's heap to
   * path (absolute, on the backend's host). Undefined when the backend
   * predates the method; a VM that cannot be dumped (on an adb device
   * without DDM) fails with code -32002. Local HotSpot VMs dump via attach.
   * The backend creates the file new with mode 0600 and never through a
   * symlink; force lets it replace an existing file, which the save dialog
   * the path comes from has already confirmed with the user.
   */
  async dumpHeap(id: string, path: string): Promise<HeapDumpResult | undefined> {
    try {
      return decodeHeapDump(await this.backend.request<unknown>(methods.dumpHeap, { id, path, force: true }, dumpHeapTimeoutMs), path);
    } catch (e) {
      if (isMethodNotFound(e)) {
        return undefined;
      }
      throw e;
    }
  }

  /**
   * hprof/summary: the class histogram of an HPROF file on the backend's host
   * (raw, see heap/hprof); stream: from one pass over the file, without
   * parsing the model (fast, constant memory; marked streamed).
   */
  async hprofSummary(path: string, stream = false): Promise<unknown> {
    return this.backend.request(methods.hprofSummary, stream ? { path, stream } : { path }, hprofTimeoutMs);
  }

  /** hprof/cancel: stops the reading, parsing and dominator tree of path in progress; how many were stopped. */
  async hprofCancel(path: string): Promise<number> {
    const r = await this.backend.request<{ stopped?: unknown }>(methods.hprofCancel, { path });
    return typeof r?.stopped === 'number' ? r.stopped : 0;
  }

  /** Calls listener with the params of each hprof/progress notification (raw, see heap/hprof decodeProgress); returns the unsubscribe. */
  onHprofProgress(listener: (params: unknown) => void): () => void {
    const l = (method: string, params: unknown): void => {
      if (method === 'hprof/progress') {
        listener(params);
      }
    };
    this.backend.on('notification', l);
    return () => this.backend.off('notification', l);
  }

  /** hprof/dominators: one level of the dominator tree; object undefined for the top. */
  async hprofDominators(path: string, object?: number, limit = 200): Promise<unknown> {
    return this.backend.request(methods.hprofDominators, object === undefined ? { path, limit } : { path, object, limit }, hprofTimeoutMs);
  }

  /** hprof/heapMap: the heap map drawn from the dump's addresses, in vm/heapMap's form. */
  async hprofHeapMap(path: string): Promise<unknown> {
    return this.backend.request(methods.hprofHeapMap, { path }, hprofTimeoutMs);
  }

  /** hprof/paths: the shortest paths from the GC roots to a class's instances (merged) or to one object. */
  async hprofPaths(path: string, target: { class?: string; object?: number }, limit = 300): Promise<unknown> {
    return this.backend.request(methods.hprofPaths, { path, ...target, limit }, hprofTimeoutMs);
  }

  /** hprof/incoming: a page of the objects that refer to object. */
  async hprofIncoming(path: string, object: number, offset = 0, limit = 100): Promise<unknown> {
    return this.backend.request(methods.hprofIncoming, { path, object, offset, limit }, hprofTimeoutMs);
  }

  /** hprof/instances: a page of a class's instances, largest retained size first. */
  async hprofInstances(path: string, cls: string, offset = 0, limit = 100): Promise<unknown> {
    return this.backend.request(methods.hprofInstances, { path, class: cls, offset, limit }, hprofTimeoutMs);
  }

  /** hprof/retained: the histogram's retained-size column. */
  async hprofRetained(path: string): Promise<unknown> {
    return this.backend.request(methods.hprofRetained, { path }, hprofTimeoutMs);
  }

  /** hprof/diff: per-class changes from base (the earlier dump) to path. */
  async hprofDiff(path: string, base: string): Promise<unknown> {
    return this.backend.request(methods.hprofDiff, { path, base }, hprofTimeoutMs);
  }

  /**
   * Turns the VM's streamed thread / heap updates on or off for this
   * connection (vm/threads and vm/heap notifications); ignored by backends
   * without it. Heap updates need a DDM VM (error -32002 otherwise).
   */
  async setUpdates(id: string, what: 'threads' | 'heap', on: boolean): Promise<void> {
    try {
      await this.backend.request(what === 'threads' ? methods.threadUpdates : methods.heapUpdates, { id, enabled: on });
    } catch (e) {
      if (!isMethodNotFound(e)) {
        throw e;
      }
    }
  }

  /**
   * Where the backend accepts DAP sessions that debug through its monitor
   * (dap/address), or undefined when it accepts none (serve --dap '') or
   * predates the method — then the extension falls back to `ddmbridge dap`.
   */
  async dapEndpoint(): Promise<DapEndpoint | undefined> {
    try {
      return parseDapAddress(await this.backend.request<unknown>(methods.dapAddress, {}, 5_000));
    } catch (e) {
      if (isMethodNotFound(e) || (e instanceof BackendError && e.code === InvalidRequest)) {
        return undefined;
      }
      throw e;
    }
  }
}

/** The backend parses a dump within five minutes; allow a little more. */
const hprofTimeoutMs = 320_000;

/** The backend waits up to five minutes for a dump; allow a little more. */
const dumpHeapTimeoutMs = 320_000;

/** What vm/dumpHeap wrote. */
export interface HeapDumpResult {
  path: string;
  bytes: number;
}

/** Reads a vm/dumpHeap result ({path, bytes}); the asked-for path when the result names none. */
export function decodeHeapDump(r: unknown, asked: string): HeapDumpResult {
  const o = typeof r === 'object' && r !== null ? (r as Record<string, unknown>) : {};
  return {
    path: typeof o.path === 'string' && o.path !== '' ? o.path : asked,
    bytes: typeof o.bytes === 'number' ? o.bytes : 0,
  };
}

/** The default file name of a VM's heap dump: `<app>-<pid>.hprof`. */
export function hprofFileName(vm: { name?: string; packageName?: string; pid?: number }): string {
  const app = (vm.packageName || vm.name || 'vm').replace(/[^\w.-]+/g, '_');
  return vm.pid ? `${app}-${vm.pid}.hprof` : `${app}.hprof`;
}

/** JSON-RPC "invalid request": dap/address when serve runs with --dap ''. */
const InvalidRequest = -32600;

export type DapEndpoint = { kind: 'pipe'; path: string } | { kind: 'tcp'; host: string; port: number };

/**
 * Reads a dap/address result, {"address": "unix:PATH"} or "tcp:HOST:PORT"
 * (a bare string too); undefined when it names nothing usable.
 */
export function parseDapAddress(r: unknown): DapEndpoint | undefined {
  const a =
    typeof r === 'string' ? r : typeof r === 'object' && r !== null ? (r as Record<string, unknown>).address : undefined;
  if (typeof a !== 'string' || a === '') {
    return undefined;
  }
  if (a.startsWith('unix:')) {
    return a.length > 5 ? { kind: 'pipe', path: a.slice(5) } : undefined;
  }
  const m = /^(?:tcp:)?\[?([^\]]*?)\]?:(\d+)$/.exec(a);
  if (m && Number(m[2]) > 0 && Number(m[2]) < 65536) {
    return { kind: 'tcp', host: m[1] || '127.0.0.1', port: Number(m[2]) };
  }
  return a.startsWith('/') || a.startsWith('\\\\') ? { kind: 'pipe', path: a } : undefined;
}
