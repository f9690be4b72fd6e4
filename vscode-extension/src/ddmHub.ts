// Which VM the Threads and Heap views show, and where their data comes from:
// a ddmbridge debug session's DDM custom events (ddmThreads, ddmHeapInfo,
// ddmHeapMap) while one is active, otherwise the backend's JSON-RPC API
// (vm/threads, vm/heap notifications and requests) for the VM picked in the
// explorer or the current VM.

import * as vscode from 'vscode';
import { ControlApi } from './backend/api';
import { isMethodNotFound } from './backend/rpc';
import { dapEvents, dapRequests, DdmKind } from './ddmProtocol';
import { VMInfo, vmLabel } from './vms';
import type { VMRef } from './webview/messages';

type Target = { kind: 'vm'; vm: VMInfo } | { kind: 'session'; session: vscode.DebugSession; vmId?: string };

export class DdmHub implements vscode.Disposable {
  private target?: Target;
  private latest = new Map<DdmKind, unknown>();
  private readonly onTarget = new vscode.EventEmitter<VMRef | null>();
  private readonly onData = new vscode.EventEmitter<{ kind: DdmKind; body: unknown }>();
  private readonly onError = new vscode.EventEmitter<string>();
  private readonly onNoDdm = new vscode.EventEmitter<string>();
  readonly onDidChangeTarget = this.onTarget.event;
  /** The target speaks no DDM: the message says so (instead of waiting for a heap map forever). */
  readonly onDidFindNoDdm = this.onNoDdm.event;
  /** Sessions whose VM answered a DDM request with ErrNoDDM. */
  private readonly plainSessions = new Set<string>();
  readonly onDidReceive = this.onData.event;
  readonly onDidFail = this.onError.event;
  private readonly subs: vscode.Disposable[] = [];
  private pollTimer?: NodeJS.Timeout;
  private lastThreadNotification = 0;
  private viewers = { threads: 0, heap: 0 };
  /** DDM events were turned on in the target session. */
  private sessionUpdates = false;

  constructor(
    private readonly api: ControlApi,
    private readonly log: vscode.OutputChannel,
    /** The display name of a monitored VM, for a session attached to it. */
    private readonly vmName: (id: string) => string | undefined = () => undefined,
    /** Whether a monitored VM speaks DDM; undefined when unknown. */
    private readonly vmDdm: (id: string) => boolean | undefined = () => undefined,
  ) {
    const be = api.backend;
    const onThreads = (p: unknown): void => {
      if (this.matchesVM(p)) {
        this.lastThreadNotification = Date.now();
        this.deliver('threads', p);
      }
    };
    const onHeap = (p: unknown): void => {
      if (!this.matchesVM(p)) {
        return;
      }
      // vm/heap carries the heap statistics (ddm.HeapInfoJSON, {id, heaps});
      // the map follows a GC, so fetch it (without another GC) while the heap
      // view is open.
      this.deliver('heapInfo', p);
      if (this.viewers.heap > 0) {
        this.scheduleHeapMap();
      }
    };
    be.on('vm/threads', onThreads);
    be.on('vm/heap', onHeap);
    this.subs.push(
      { dispose: () => be.off('vm/threads', onThreads) },
      { dispose: () => be.off('vm/heap', onHeap) },
      vscode.debug.onDidReceiveDebugSessionCustomEvent((e) => this.onCustomEvent(e)),
      vscode.debug.onDidStartDebugSession((s) => {
        if (s.type === 'ddmbridge') {
          this.setTarget({ kind: 'session', session: s, vmId: sessionVM(s) });
        }
      }),
      vscode.debug.onDidTerminateDebugSession((s) => {
        if (this.target?.kind === 'session' && this.target.session.id === s.id) {
          const next = vscode.debug.activeDebugSession;
          if (next?.type === 'ddmbridge') {
            this.setTarget({ kind: 'session', session: next, vmId: sessionVM(next) });
          } else {
            this.target = undefined;
            this.onTarget.fire(null);
          }
        }
      }),
      vscode.debug.onDidChangeActiveDebugSession((s) => {
        if (s?.type === 'ddmbridge' && !(this.target?.kind === 'session' && this.target.session.id === s.id)) {
          this.setTarget({ kind: 'session', session: s, vmId: sessionVM(s) });
        }
      }),
    );
  }

  /** The VM the views show, for the webviews' title. */
  get current(): VMRef | null {
    const t = this.target;
    if (!t) {
      return null;
    }
    if (t.kind === 'vm') {
      return { id: t.vm.id, name: vmLabel(t.vm), source: 'backend' };
    }
    return {
      id: t.vmId ?? `session:${t.session.id}`,
      name: (t.vmId && this.vmName(t.vmId)) || t.session.name,
      source: 'session',
    };
  }

  /** Why the target has no DDM heap map, or undefined when it may have one. */
  get noDdm(): string | undefined {
    const t = this.target;
    if (!t) {
      return undefined;
    }
    const plain =
      t.kind === 'vm'
        ? !t.vm.ddm
        : t.vmId
          ? this.vmDdm(t.vmId) === false
          : this.plainSessions.has(t.session.id);
    if (!plain) {
      return undefined;
    }
    return (
      `${this.current?.name ?? 'This VM'} is a plain JVM without DDM: the DDM heap map needs an Android VM ` +
      '(or the simulated DDM VM). "Dump Heap" writes an HPROF dump of any VM and opens its class histogram, ' +
      'dominator tree and heap map.'
    );
  }

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
    const prevVM = this.target?.kind === 'vm' ? this.target.vm.id : undefined;
    this.target = t;
    this.latest.clear();
    this.onTarget.fire(this.current);
    if (prevVM && prevVM !== this.currentVMId) {
      void this.setBackendUpdates(prevVM, false);
    }
    void this.applyViewers();
    void this.refresh();
  }

  /** A view became visible (+1) or hidden (−1); streams run only while someone looks. */
  watch(what: 'threads' | 'heap', delta: 1 | -1): void {
    this.viewers[what] = Math.max(0, this.viewers[what] + delta);
    void this.applyViewers();
    if (delta > 0) {
      void this.refresh(what === 'threads' ? ['threads'] : ['heapInfo', 'heapMap']);
    }
  }

  private async applyViewers(): Promise<void> {
    clearInterval(this.pollTimer);
    this.pollTimer = undefined;
    const t = this.target;
    if (!t) {
      return;
    }
    if (t.kind === 'session' && !t.vmId) {
      if (this.plainSessions.has(t.session.id)) {
        return; // it answered ErrNoDDM once: asking again only fails again
      }
      const heap = this.viewers.heap > 0;
      if (!this.sessionUpdates && !heap && this.viewers.threads === 0) {
        return; // nothing was turned on, nothing to turn off
      }
      this.sessionUpdates = heap || this.viewers.threads > 0;
      await this.sessionRequest(t.session, dapRequests.updates, {
        threads: this.viewers.threads > 0,
        heapInfo: heap,
        heapMap: heap,
      });
      return;
    }
    const vmId = t.kind === 'vm' ? t.vm.id : t.vmId!;
    await this.setBackendUpdates(vmId, this.viewers.threads > 0, this.viewers.heap > 0 && !this.noDdm);
    if (this.viewers.threads > 0) {
      // Fallback for backends that stream nothing: poll while the view is visible.
      this.pollTimer = setInterval(() => {
        if (Date.now() - this.lastThreadNotification > 4000) {
          void this.refresh(['threads']);
        }
      }, 2000);
    }
  }

  private async setBackendUpdates(id: string, threads: boolean, heap = threads): Promise<void> {
    try {
      await this.api.setUpdates(id, 'threads', threads);
      await this.api.setUpdates(id, 'heap', heap);
    } catch (e) {
      this.log.appendLine(`updates for VM ${id}: ${errorText(e)}`);
    }
  }

  private heapMapTimer?: NodeJS.Timeout;

  private scheduleHeapMap(): void {
    clearTimeout(this.heapMapTimer);
    this.heapMapTimer = setTimeout(() => void this.refresh(['heapMap']), 300);
  }

  /** Fetches fresh data for the current target. */
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
      if (t.kind === 'session' && !id) {
        return;
      }
    }
    if (t.kind === 'session' && !id) {
      // A session's heap data arrives as events after a GC: ask for one when
      // the map is wanted and none has come yet.
      if (kinds.includes('heapMap') && (collect || !this.latest.has('heapMap'))) {
        await this.sessionRequest(t.session, dapRequests.gc, {});
      }
      return;
    }
    if (!id) {
      return;
    }
    const tasks: Promise<void>[] = [];
    if (kinds.includes('threads')) {
      tasks.push(
        this.api.threads(id).then(
          (threads) => this.deliver('threads', threads),
          (e) => this.fail(`Threads of VM ${id}: ${errorText(e)}`),
        ),
      );
    }
    if (kinds.includes('heapInfo')) {
      tasks.push(
        this.api.heapInfo(id).then(
          (b) => this.deliver('heapInfo', b),
          (e) => this.fail(`Heap info of VM ${id}: ${errorText(e)}`),
        ),
      );
    }
    if (kinds.includes('heapMap')) {
      tasks.push(
        this.api.heapMap(id, collect).then(
          (b) => this.deliver('heapMap', b),
          (e) => this.fail(`Heap map of VM ${id}: ${errorText(e)}`),
        ),
      );
    }
    await Promise.all(tasks);
  }

  /** Runs a GC in the current target's VM; the heap map follows as an update. */
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
    await this.api.gc(id);
    await this.refresh(['heapInfo', 'heapMap'], true);
  }

  private async sessionRequest(s: vscode.DebugSession, command: string, args: unknown): Promise<void> {
    try {
      await s.customRequest(command, args);
    } catch (e) {
      if (isNoDdm(e)) {
        this.plainSessions.add(s.id);
        const t = this.target;
        if (t?.kind === 'session' && t.session.id === s.id && this.noDdm) {
          this.onNoDdm.fire(this.noDdm);
        }
        return;
      }
      if (!isMethodNotFound(e)) {
        this.log.appendLine(`${command} in session ${s.name}: ${errorText(e)}`);
      }
    }
  }

  private onCustomEvent(e: vscode.DebugSessionCustomEvent): void {
    const kind = dapEvents[e.event];
    if (!kind || e.session.type !== 'ddmbridge') {
      return;
    }
    const t = this.target;
    if (t?.kind !== 'session' || t.session.id !== e.session.id) {
      this.setTarget({ kind: 'session', session: e.session, vmId: sessionVM(e.session) });
    }
    this.deliver(kind, e.body);
  }

  private matchesVM(p: unknown): boolean {
    // Every notification body of the schema names its VM in id (a string).
    const id = typeof p === 'object' && p !== null ? (p as Record<string, unknown>).id : undefined;
    return typeof id === 'string' && id === this.currentVMId;
  }

  private deliver(kind: DdmKind, body: unknown): void {
    this.latest.set(kind, body);
    this.onData.fire({ kind, body });
  }

  private fail(msg: string): void {
    this.log.appendLine(msg);
    this.onError.fire(msg);
  }

  dispose(): void {
    clearInterval(this.pollTimer);
    clearTimeout(this.heapMapTimer);
    this.subs.forEach((d) => d.dispose());
    this.onTarget.dispose();
    this.onData.dispose();
    this.onError.dispose();
    this.onNoDdm.dispose();
  }
}

function sessionVM(s: vscode.DebugSession): string | undefined {
  // ddmbridgeVM: the id the configuration provider resolved "current" (or a routed vm) to.
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
