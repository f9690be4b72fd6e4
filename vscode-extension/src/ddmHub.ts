// Which VM the Threads and Heap views show, and the one road its data takes.
//
// A VM the backend monitors — picked in the explorer, or the VM of a
// ddmbridge debug session (the session names it: its configuration's
// resolved vm, or the `ddmVM` request; a JVM launched with F5 is handed to
// the monitor too) — is read through the backend's JSON-RPC API: updates
// are turned on while a view looks, and the backend pushes vm/threads,
// vm/heap and vm/heapMap notifications, the same objects a DAP session's
// events carry (ddm/view.go). Only a session with no monitor behind it (the
// stand-alone `ddmbridge dap` fallback) uses its DDM events (ddmThreads,
// ddmHeapInfo, ddmHeapMap). Nothing here polls on a timer: the backend
// pushes, the hub passes each body on as sent and the view that renders it
// decodes it, once (threads/threads, heap/heapinfo, heap/heapmap). A view
// opening, Refresh and GC ask once.
//
// No vscode at run time: it follows the debug sessions through the session
// tracker (debug/sessions), and the unit tests drive it with fakes.

import type { ControlApi } from './backend/api';
import { isMethodNotFound } from './backend/rpc';
import { dapEvents, dapRequests, DdmKind } from './ddmProtocol';
import { VMInfo, vmTitle } from './vms';
import type { SessionEvents, TrackedSession } from './debug/sessions';
import { Disposable, Emitter } from './events';
import { DdmViewName, views } from './viewList';
import type { VMRef } from './webview/messages';

/** What the hub needs of a debug session (vscode.DebugSession has it). */
export type HubSession = TrackedSession;

/** What the hub needs of the backend (ControlApi and its Backend's notifications). */
export type HubApi = Pick<ControlApi, 'threads' | 'heapInfo' | 'heapMap' | 'gc' | 'setUpdates'> & {
  backend: { on(method: string, fn: (p: unknown) => void): unknown; off(method: string, fn: (p: unknown) => void): unknown };
};

type Target = { kind: 'vm'; vm: VMInfo } | { kind: 'session'; session: HubSession; vmId?: string };

/** The backend's notification of each kind (docs/rpc.md). */
const notifications: Record<string, DdmKind> = { 'vm/threads': 'threads', 'vm/heap': 'heapInfo', 'vm/heapMap': 'heapMap' };
/** Every kind, in the order of the session's events. */
const allKinds: DdmKind[] = Object.values(dapEvents);

export class DdmHub implements Disposable {
  private target?: Target;
  private latest = new Map<DdmKind, unknown>();
  private readonly onTarget = new Emitter<VMRef | null>();
  private readonly onData = new Emitter<{ kind: DdmKind; body: unknown }>();
  private readonly onError = new Emitter<string>();
  private readonly onNoDdm = new Emitter<string>();
  readonly onDidChangeTarget = this.onTarget.event;
  /** Bodies of the target as sent (ddm.ThreadsJSON, HeapInfoJSON, HeapMapJSON). */
  readonly onDidReceive = this.onData.event;
  readonly onDidFail = this.onError.event;
  /** The target speaks no DDM: the message says so (instead of waiting for a heap map forever). */
  readonly onDidFindNoDdm = this.onNoDdm.event;
  private readonly subs: Disposable[] = [];
  /** Open, visible views by name (the view list's views with DDM data). */
  private viewers = new Map<DdmViewName, number>();
  /** What the backend streams for which VM: the updates this hub turned on. */
  private streaming = new Map<string, { threads: boolean; heap: boolean }>();
  /** Stand-alone sessions whose VM answered a DDM request with "no DDM". */
  private readonly plainSessions = new Set<string>();
  /** Sessions asked for their monitored VM (ddmVM), by id: the answer. */
  private readonly sessionVMs = new Map<string, string | undefined>();
  /** DDM events were turned on in the target session. */
  private sessionUpdates = false;

  constructor(
    private readonly api: HubApi,
    private readonly log: (line: string) => void,
    /** The display name of a monitored VM, for a session attached to it. */
    private readonly vmName: (id: string) => string | undefined = () => undefined,
    /** Whether a monitored VM speaks DDM; undefined when unknown. */
    private readonly vmDdm: (id: string) => boolean | undefined = () => undefined,
  ) {
    for (const [method, kind] of Object.entries(notifications)) {
      const fn = (p: unknown): void => {
        if (this.matchesVM(p)) {
          this.deliver(kind, p);
        }
      };
      api.backend.on(method, fn);
      this.subs.push({ dispose: () => void api.backend.off(method, fn) });
    }
    // A backend that (re)starts knows of no updates: turn on again what the views watch.
    const onState = (state: unknown): void => {
      if (state === 'running' && this.streaming.size > 0) {
        this.streaming.clear();
        void this.applyViewers().then(() => this.refresh(this.watched()));
      }
    };
    api.backend.on('state', onState);
    this.subs.push({ dispose: () => void api.backend.off('state', onState) });
  }

  // Debug sessions.

  /** Follows the ddmbridge debug sessions (the session tracker's events): the views show the active one's VM. */
  follow(sessions: SessionEvents<HubSession>): Disposable {
    const subs = [
      sessions.onDidStart((s) => this.sessionStarted(s)),
      sessions.onDidConnect((s) => void this.sessionReady(s)),
      sessions.onDidEnd(({ session, next }) => this.sessionEnded(session, next)),
      sessions.onDidChangeActive((s) => this.sessionActivated(s)),
      sessions.onDidReceiveCustomEvent((e) => this.sessionEvent(e.session, e.event, e.body)),
    ];
    return { dispose: () => subs.forEach((d) => d.dispose()) };
  }

  /** A debug session started: the views follow it. */
  sessionStarted(s: HubSession): void {
    if (s.type === 'ddmbridge') {
      this.setTarget({ kind: 'session', session: s, vmId: this.sessionVM(s) });
    }
  }

  /**
   * The session is connected to its VM (its `process` event): ask which
   * monitored VM it debugs, and read that VM through the backend.
   */
  async sessionReady(s: HubSession): Promise<void> {
    if (s.type !== 'ddmbridge' || this.sessionVMs.has(s.id)) {
      return;
    }
    let id: string | undefined;
    try {
      const body = (await s.customRequest(dapRequests.vm, {})) as { id?: unknown } | undefined;
      id = typeof body?.id === 'string' && body.id !== '' ? body.id : undefined;
    } catch (e) {
      if (!isMethodNotFound(e) && !/unknown|not implement/i.test(errorText(e))) {
        this.log(`${dapRequests.vm} in session ${s.name}: ${errorText(e)}`);
      }
    }
    this.sessionVMs.set(s.id, id);
    const t = this.target;
    if (t?.kind !== 'session' || t.session.id !== s.id) {
      return;
    }
    if (id && t.vmId !== id) {
      this.setTarget({ kind: 'session', session: s, vmId: id });
    } else if (!t.vmId) {
      // No monitor behind the session: its DDM events are the road.
      await this.applyViewers();
      await this.refresh(this.watched());
    }
  }

  /** A debug session ended; next is the active ddmbridge session, if any. */
  sessionEnded(s: HubSession, next?: HubSession): void {
    this.sessionVMs.delete(s.id);
    this.plainSessions.delete(s.id);
    if (this.target?.kind !== 'session' || this.target.session.id !== s.id) {
      return;
    }
    if (next?.type === 'ddmbridge' && next.id !== s.id) {
      this.setTarget({ kind: 'session', session: next, vmId: this.sessionVM(next) });
      return;
    }
    this.stopStreams();
    this.target = undefined;
    this.latest.clear();
    this.onTarget.fire(null);
  }

  /** The active debug session changed. */
  sessionActivated(s: HubSession | undefined): void {
    if (s?.type === 'ddmbridge' && !(this.target?.kind === 'session' && this.target.session.id === s.id)) {
      this.setTarget({ kind: 'session', session: s, vmId: this.sessionVM(s) });
    }
  }

  /** A custom event of a session: DDM events are read only from a session without a monitored VM. */
  sessionEvent(s: HubSession, event: string, body: unknown): void {
    const kind = dapEvents[event];
    if (!kind || s.type !== 'ddmbridge') {
      return;
    }
    const t = this.target;
    if (t?.kind === 'session' && t.session.id === s.id && !t.vmId) {
      this.deliver(kind, body);
    }
  }

  /** The VM the views show, for the webviews' title. */
  get current(): VMRef | null {
    const t = this.target;
    if (!t) {
      return null;
    }
    if (t.kind === 'vm') {
      return { id: t.vm.id, name: vmTitle(t.vm), source: 'backend' };
    }
    return {
      id: t.vmId ?? `session:${t.session.id}`,
      name: (t.vmId && this.vmName(t.vmId)) || t.session.name,
      source: t.vmId ? 'backend' : 'session',
    };
  }

  /** Why the target has no DDM heap map, or undefined when it may have one. */
  get noDdm(): string | undefined {
    const t = this.target;
    if (!t) {
      return undefined;
    }
    const plain =
      t.kind === 'vm' ? !t.vm.ddm : t.vmId ? this.vmDdm(t.vmId) === false : this.plainSessions.has(t.session.id);
    if (!plain) {
      return undefined;
    }
    return (
      `${this.current?.name ?? 'This VM'} is a plain JVM without DDM: the DDM heap map needs an Android VM ` +
      '(or the simulated DDM VM). "Dump Heap" writes an HPROF dump of any VM and opens its class histogram, ' +
      'dominator tree and heap map.'
    );
  }

  /** The monitored VM the views show, if any. */
  get currentVMId(): string | undefined {
    const t = this.target;
    return t?.kind === 'vm' ? t.vm.id : t?.vmId;
  }

  /** The last body of each kind for the current target (for a view that opens late). */
  last(kind: DdmKind): unknown {
    return this.latest.get(kind);
  }

  /** Shows a monitored VM in the views (explorer click, "Show Heap Map" on a VM). */
  focusVM(vm: VMInfo): void {
    if (this.target?.kind === 'vm' && this.target.vm.id === vm.id) {
      this.target = { kind: 'vm', vm };
      return;
    }
    this.setTarget({ kind: 'vm', vm });
  }

  private setTarget(t: Target): void {
    this.sessionUpdates = false;
    this.target = t;
    const where = t.kind === 'vm' ? `VM ${t.vm.id}` : `session "${t.session.name}"${t.vmId ? ` (VM ${t.vmId})` : ''}`;
    this.log(`views follow ${where}${this.currentVMId ? ', through the backend' : ''}`);
    this.latest.clear();
    this.onTarget.fire(this.current);
    void this.applyViewers().then(() => this.refresh(this.watched()));
  }

  /** The kinds some open view shows (the view list's ddm of each). */
  private watched(): DdmKind[] {
    const kinds = new Set<DdmKind>();
    for (const [view, n] of this.viewers) {
      if (n > 0) {
        views[view].ddm.forEach((k) => kinds.add(k));
      }
    }
    return allKinds.filter((k) => kinds.has(k));
  }

  /** A view became visible (+1) or hidden (−1); the backend streams only while someone looks. */
  watch(view: DdmViewName, delta: 1 | -1): void {
    this.viewers.set(view, Math.max(0, (this.viewers.get(view) ?? 0) + delta));
    void this.applyViewers().then(() => (delta > 0 ? this.refresh([...views[view].ddm]) : undefined));
  }

  /** Turns the streams of the target on or off as the viewers ask, and those of any other VM off. */
  private async applyViewers(): Promise<void> {
    const t = this.target;
    const id = this.currentVMId;
    const watched = this.watched();
    const heapWatched = watched.includes('heapInfo') || watched.includes('heapMap');
    const want = id ? { threads: watched.includes('threads'), heap: heapWatched && this.noDdm === undefined } : undefined;
    const tasks: Promise<void>[] = [];
    for (const [other, on] of [...this.streaming]) {
      if (other !== id) {
        this.streaming.delete(other);
        tasks.push(this.setBackendUpdates(other, on, { threads: false, heap: false }));
      }
    }
    if (id && want) {
      const had = this.streaming.get(id) ?? { threads: false, heap: false };
      this.streaming.set(id, want);
      tasks.push(this.setBackendUpdates(id, had, want));
    } else if (t?.kind === 'session' && this.sessionVMs.has(t.session.id)) {
      // (Until the session says which VM it debugs, nothing is asked of it.)
      tasks.push(this.applySessionUpdates(t.session));
    }
    await Promise.all(tasks);
  }

  private async setBackendUpdates(id: string, had: { threads: boolean; heap: boolean }, want: { threads: boolean; heap: boolean }): Promise<void> {
    try {
      if (had.threads !== want.threads) {
        await this.api.setUpdates(id, 'threads', want.threads);
      }
      if (had.heap !== want.heap) {
        await this.api.setUpdates(id, 'heap', want.heap);
      }
    } catch (e) {
      this.log(`updates for VM ${id}: ${errorText(e)}`);
    }
  }

  /** A session without a monitored VM: its DDM events, on while a view looks. */
  private async applySessionUpdates(s: HubSession): Promise<void> {
    if (this.plainSessions.has(s.id)) {
      return; // it answered "no DDM" once: asking again only fails again
    }
    const watched = this.watched();
    if (!this.sessionUpdates && watched.length === 0) {
      return; // nothing was turned on, nothing to turn off
    }
    this.sessionUpdates = watched.length > 0;
    await this.sessionRequest(s, dapRequests.updates, { threads: watched.includes('threads'), heapInfo: watched.includes('heapInfo'), heapMap: watched.includes('heapMap') });
  }

  private stopStreams(): void {
    for (const [id, on] of [...this.streaming]) {
      this.streaming.delete(id);
      void this.setBackendUpdates(id, on, { threads: false, heap: false });
    }
  }

  /** Asks once for the target's data (a view opened, the target changed, Refresh). */
  async refresh(kinds: DdmKind[] = ['threads', 'heapInfo', 'heapMap'], collect = false): Promise<void> {
    const t = this.target;
    if (!t) {
      return;
    }
    const id = this.currentVMId;
    const noDdm = this.noDdm;
    if (noDdm && (kinds.includes('heapMap') || kinds.includes('heapInfo'))) {
      this.onNoDdm.fire(noDdm);
      kinds = kinds.filter((k) => k === 'threads');
    }
    if (!id && t.kind === 'session' && !this.sessionVMs.has(t.session.id)) {
      return; // not connected yet (sessionReady asks then)
    }
    if (!id) {
      // A stand-alone session's heap data arrives as events after a GC: ask
      // for one when the map is wanted and none has come yet.
      if (t.kind === 'session' && kinds.includes('heapMap') && (collect || !this.latest.has('heapMap'))) {
        await this.sessionRequest(t.session, dapRequests.gc, {});
      }
      return;
    }
    const ask = (kind: DdmKind, call: () => Promise<unknown>): Promise<void> =>
      call().then(
        (b) => {
          if (this.currentVMId === id) {
            this.deliver(kind, b);
          }
        },
        (e) => this.fail(`${kind === 'threads' ? 'Threads' : kind === 'heapInfo' ? 'Heap info' : 'Heap map'} of VM ${id}: ${errorText(e)}`),
      );
    const tasks: Promise<void>[] = [];
    if (kinds.includes('threads')) {
      tasks.push(ask('threads', () => this.api.threads(id)));
    }
    if (kinds.includes('heapInfo')) {
      tasks.push(ask('heapInfo', () => this.api.heapInfo(id)));
    }
    if (kinds.includes('heapMap')) {
      tasks.push(ask('heapMap', () => this.api.heapMap(id, collect)));
    }
    await Promise.all(tasks);
  }

  /** Runs a GC in the target's VM and shows the fresh heap. */
  async gc(): Promise<void> {
    const t = this.target;
    const id = this.currentVMId;
    if (this.noDdm) {
      throw new Error(this.noDdm);
    }
    if (t?.kind === 'session' && !id) {
      await this.sessionRequest(t.session, dapRequests.gc, {});
      return;
    }
    if (!id) {
      throw new Error('No VM is shown: pick one in the VM explorer first.');
    }
    // vm/heapMap with gc runs the collection and answers the fresh map.
    await this.refresh(['heapInfo', 'heapMap'], true);
  }

  private async sessionRequest(s: HubSession, command: string, args: unknown): Promise<void> {
    try {
      await s.customRequest(command, args);
    } catch (e) {
      if (isNoDdm(e)) {
        this.plainSessions.add(s.id);
        const t = this.target;
        if (t?.kind === 'session' && t.session.id === s.id && this.noDdm) {
          this.onNoDdm.fire(this.noDdm);
          this.fail(
            `${s.name}: its VM speaks no DDM and no ddmbridge monitor watches it, so no threads can be shown here; ` +
              'debug it through the backend (the default) to see its threads.',
          );
        }
        return;
      }
      if (!isMethodNotFound(e)) {
        this.log(`${command} in session ${s.name}: ${errorText(e)}`);
      }
    }
  }

  private sessionVM(s: HubSession): string | undefined {
    return this.sessionVMs.get(s.id) ?? configuredVM(s);
  }

  private matchesVM(p: unknown): boolean {
    // Every notification body of the schema names its VM in id (a string).
    const id = typeof p === 'object' && p !== null ? (p as Record<string, unknown>).id : undefined;
    return typeof id === 'string' && id === this.currentVMId;
  }

  /** Passes a body on as sent: the view that renders it decodes it, once. */
  private deliver(kind: DdmKind, body: unknown): void {
    this.latest.set(kind, body);
    this.onData.fire({ kind, body });
  }

  private fail(msg: string): void {
    this.log(msg);
    this.onError.fire(msg);
  }

  dispose(): void {
    this.stopStreams();
    this.subs.forEach((d) => d.dispose());
    this.onTarget.dispose();
    this.onData.dispose();
    this.onError.dispose();
    this.onNoDdm.dispose();
  }
}

/** The monitored VM a session's configuration names (ddmbridgeVM: "current" resolved by the provider). */
function configuredVM(s: HubSession): string | undefined {
  const vm = s.configuration.ddmbridgeVM ?? s.configuration.vm;
  return typeof vm === 'string' && vm !== '' && vm !== 'current' ? vm : undefined;
}

/** The session's answer to a DDM request on a VM without DDM (dap ErrNoDDM, "DDM not available"). */
export function isNoDdm(e: unknown): boolean {
  return /DDM not available|does not speak DDM/.test(errorText(e));
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
