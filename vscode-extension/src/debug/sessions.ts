// The one road by which the extension follows ddmbridge debug sessions: their
// start and end, which one is active, when one is connected to its VM, when it
// stops and continues, and its custom events. The DDM views (through the hub),
// the Memory view and hot code replace subscribe here; nothing else listens to
// vscode.debug's session events or registers a debug adapter tracker.
//
// No vscode at run time: extension.ts hands it vscode.debug, the unit tests a
// fake with the same shape.

import { Disposable, Emitter, Event } from '../events';

/** The debugger type this extension contributes. */
export const debugType = 'ddmbridge';

/** What the followers need of a debug session (vscode.DebugSession has it). */
export interface TrackedSession {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  readonly configuration: { [key: string]: unknown };
  customRequest(command: string, args?: unknown): PromiseLike<unknown>;
}

/** The DAP messages the tracker reads (events and responses sent by the adapter). */
interface AdapterMessage {
  type?: string;
  event?: string;
  command?: string;
  success?: boolean;
  body?: unknown;
}

/** vscode.DebugAdapterTracker, the part used here. */
export interface AdapterTracker {
  onDidSendMessage?(m: AdapterMessage): void;
  onError?(e: Error): void;
  onExit?(code: number | undefined, signal: string | undefined): void;
}

/** vscode.debug, the part used here. */
export interface DebugHost<S extends TrackedSession> {
  readonly activeDebugSession: S | undefined;
  onDidStartDebugSession(fn: (s: S) => unknown): Disposable;
  onDidTerminateDebugSession(fn: (s: S) => unknown): Disposable;
  onDidChangeActiveDebugSession(fn: (s: S | undefined) => unknown): Disposable;
  onDidReceiveDebugSessionCustomEvent(fn: (e: { session: S; event: string; body?: unknown }) => unknown): Disposable;
  registerDebugAdapterTrackerFactory(type: string, factory: { createDebugAdapterTracker(s: S): AdapterTracker }): Disposable;
}

/** Requests whose success means the VM runs again (as a `continued` event would say). */
const resuming = new Set(['continue', 'next', 'stepIn', 'stepOut']);

/** What a follower subscribes to; every event is of a ddmbridge session. */
export interface SessionEvents<S extends TrackedSession = TrackedSession> {
  /** The active ddmbridge session, if the active session is one. */
  readonly active: S | undefined;
  readonly onDidStart: Event<S>;
  /** The session is connected to its VM (the adapter sent its `process` event). */
  readonly onDidConnect: Event<S>;
  /** The VM stopped (the `stopped` event's body as sent). */
  readonly onDidStop: Event<{ session: S; body: unknown }>;
  /** The VM runs again: a `continued` event, or a successful continue or step. */
  readonly onDidContinue: Event<S>;
  /** A custom event of the session (ddmThreads, memoryCounts, …). */
  readonly onDidReceiveCustomEvent: Event<{ session: S; event: string; body: unknown }>;
  /** The session ended; next is the active ddmbridge session that remains, if any. */
  readonly onDidEnd: Event<{ session: S; next: S | undefined }>;
  /** The active session changed: the ddmbridge one, or undefined for another kind or none. */
  readonly onDidChangeActive: Event<S | undefined>;
  /** The adapter reported an error, or exited with a failure (code or signal). */
  readonly onDidFail: Event<{ session: S; error?: Error; code?: number; signal?: string }>;
}

export class SessionTracker<S extends TrackedSession> implements SessionEvents<S>, Disposable {
  private readonly start = new Emitter<S>();
  private readonly connect = new Emitter<S>();
  private readonly stop = new Emitter<{ session: S; body: unknown }>();
  private readonly cont = new Emitter<S>();
  private readonly custom = new Emitter<{ session: S; event: string; body: unknown }>();
  private readonly end = new Emitter<{ session: S; next: S | undefined }>();
  private readonly activate = new Emitter<S | undefined>();
  private readonly fail = new Emitter<{ session: S; error?: Error; code?: number; signal?: string }>();
  readonly onDidStart = this.start.event;
  readonly onDidConnect = this.connect.event;
  readonly onDidStop = this.stop.event;
  readonly onDidContinue = this.cont.event;
  readonly onDidReceiveCustomEvent = this.custom.event;
  readonly onDidEnd = this.end.event;
  readonly onDidChangeActive = this.activate.event;
  readonly onDidFail = this.fail.event;
  private readonly subs: Disposable[];

  constructor(private readonly host: DebugHost<S>) {
    const ours = (s: S | undefined): s is S => s?.type === debugType;
    this.subs = [
      host.onDidStartDebugSession((s) => ours(s) && this.start.fire(s)),
      host.onDidTerminateDebugSession((s) => {
        if (ours(s)) {
          const next = this.active;
          this.end.fire({ session: s, next: next?.id === s.id ? undefined : next });
        }
      }),
      host.onDidChangeActiveDebugSession((s) => this.activate.fire(ours(s) ? s : undefined)),
      host.onDidReceiveDebugSessionCustomEvent((e) => ours(e.session) && this.custom.fire({ session: e.session, event: e.event, body: e.body })),
      host.registerDebugAdapterTrackerFactory(debugType, {
        createDebugAdapterTracker: (session) => ({
          onDidSendMessage: (m) => {
            if (m.type === 'event') {
              if (m.event === 'process') {
                this.connect.fire(session);
              } else if (m.event === 'stopped') {
                this.stop.fire({ session, body: m.body });
              } else if (m.event === 'continued') {
                this.cont.fire(session);
              }
            } else if (m.type === 'response' && m.success && resuming.has(m.command ?? '')) {
              this.cont.fire(session);
            }
          },
          onError: (error) => this.fail.fire({ session, error }),
          onExit: (code, signal) => {
            if (code || signal) {
              this.fail.fire({ session, code, signal });
            }
          },
        }),
      }),
    ];
  }

  get active(): S | undefined {
    const s = this.host.activeDebugSession;
    return s?.type === debugType ? s : undefined;
  }

  dispose(): void {
    this.subs.forEach((d) => d.dispose());
    for (const e of [this.start, this.connect, this.stop, this.cont, this.custom, this.end, this.activate, this.fail]) {
      e.dispose();
    }
  }
}
