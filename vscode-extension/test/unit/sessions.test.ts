import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DdmHub, HubApi } from '../../src/ddmHub';
import { AdapterTracker, DebugHost, SessionTracker, TrackedSession } from '../../src/debug/sessions';
import type { Disposable } from '../../src/events';

class Session implements TrackedSession {
  requests: string[] = [];
  constructor(
    readonly id: string,
    readonly type = 'ddmbridge',
    readonly name = `session ${id}`,
    readonly configuration: Record<string, unknown> = {},
    private readonly answers: Record<string, unknown> = {},
  ) {}
  async customRequest(command: string): Promise<unknown> {
    this.requests.push(command);
    if (!(command in this.answers)) {
      throw new Error(`unknown request ${command}`);
    }
    return this.answers[command];
  }
}

/** vscode.debug as the tracker uses it: the test fires its events and plays the adapter. */
class FakeDebug implements DebugHost<Session> {
  activeDebugSession: Session | undefined;
  private listeners = new Map<string, Set<(v: never) => unknown>>();
  factories: { type: string; create(s: Session): AdapterTracker }[] = [];
  private trackers = new Map<string, AdapterTracker>();
  private on(name: string, fn: (v: never) => unknown): Disposable {
    const set = this.listeners.get(name) ?? new Set();
    this.listeners.set(name, set.add(fn));
    return { dispose: () => set.delete(fn) };
  }
  fire(name: string, v: unknown): void {
    this.listeners.get(name)?.forEach((fn) => fn(v as never));
  }
  listening(): number {
    return [...this.listeners.values()].reduce((n, s) => n + s.size, 0);
  }
  onDidStartDebugSession = (fn: (s: Session) => unknown) => this.on('start', fn);
  onDidTerminateDebugSession = (fn: (s: Session) => unknown) => this.on('end', fn);
  onDidChangeActiveDebugSession = (fn: (s: Session | undefined) => unknown) => this.on('active', fn);
  onDidReceiveDebugSessionCustomEvent = (fn: (e: { session: Session; event: string; body?: unknown }) => unknown) => this.on('custom', fn);
  registerDebugAdapterTrackerFactory(type: string, f: { createDebugAdapterTracker(s: Session): AdapterTracker }): Disposable {
    const entry = { type, create: (s: Session) => f.createDebugAdapterTracker(s) };
    this.factories.push(entry);
    return { dispose: () => this.factories.splice(this.factories.indexOf(entry), 1) };
  }
  /** Starts a session as VS Code does: the start event, then an adapter tracker from each factory of its type. */
  startSession(s: Session): void {
    this.activeDebugSession = s;
    this.fire('start', s);
    this.fire('active', s);
    for (const f of this.factories.filter((x) => x.type === s.type)) {
      this.trackers.set(s.id, f.create(s));
    }
  }
  adapterSends(s: Session, m: object): void {
    this.trackers.get(s.id)?.onDidSendMessage?.(m);
  }
  adapter(s: Session): AdapterTracker | undefined {
    return this.trackers.get(s.id);
  }
}

function record(t: SessionTracker<Session>): string[] {
  const seen: string[] = [];
  t.onDidStart((s) => seen.push(`start ${s.id}`));
  t.onDidConnect((s) => seen.push(`connect ${s.id}`));
  t.onDidStop(({ session, body }) => seen.push(`stop ${session.id} ${JSON.stringify(body)}`));
  t.onDidContinue((s) => seen.push(`continue ${s.id}`));
  t.onDidReceiveCustomEvent((e) => seen.push(`custom ${e.session.id} ${e.event} ${JSON.stringify(e.body)}`));
  t.onDidEnd(({ session, next }) => seen.push(`end ${session.id} next ${next?.id ?? '-'}`));
  t.onDidChangeActive((s) => seen.push(`active ${s?.id ?? '-'}`));
  t.onDidFail(({ session, error, code, signal }) => seen.push(`fail ${session.id} ${error?.message ?? signal ?? code}`));
  return seen;
}

describe('SessionTracker', () => {
  test('one adapter tracker publishes a session\'s start, connection, stops, continues, custom events and end', () => {
    const debug = new FakeDebug();
    const t = new SessionTracker(debug);
    assert.deepEqual(debug.factories.map((f) => f.type), ['ddmbridge'], 'one tracker registration, for ddmbridge');
    const seen = record(t);
    const s = new Session('1');
    debug.startSession(s);
    assert.equal(t.active, s);
    debug.adapterSends(s, { type: 'event', event: 'process', body: { name: 'Main' } });
    debug.adapterSends(s, { type: 'event', event: 'stopped', body: { reason: 'breakpoint', threadId: 1 } });
    debug.adapterSends(s, { type: 'response', command: 'next', success: true });
    debug.adapterSends(s, { type: 'event', event: 'stopped', body: { reason: 'step', threadId: 1 } });
    debug.adapterSends(s, { type: 'response', command: 'continue', success: false });
    debug.adapterSends(s, { type: 'response', command: 'threads', success: true });
    debug.adapterSends(s, { type: 'event', event: 'continued', body: { threadId: 1 } });
    debug.fire('custom', { session: s, event: 'memoryCounts', body: { classes: [], complete: true } });
    debug.activeDebugSession = undefined;
    debug.fire('end', s);
    assert.deepEqual(seen, [
      'start 1',
      'active 1',
      'connect 1',
      'stop 1 {"reason":"breakpoint","threadId":1}',
      'continue 1',
      'stop 1 {"reason":"step","threadId":1}',
      'continue 1',
      'custom 1 memoryCounts {"classes":[],"complete":true}',
      'end 1 next -',
    ]);
  });

  test('sessions of other debuggers are not published; the active one is undefined then', () => {
    const debug = new FakeDebug();
    const t = new SessionTracker(debug);
    const seen = record(t);
    const java = new Session('j', 'java');
    debug.startSession(java);
    debug.fire('custom', { session: java, event: 'memoryCounts', body: {} });
    debug.fire('end', java);
    assert.deepEqual(seen, ['active -'], 'only the change of the active session, to none of ours');
    assert.equal(t.active, undefined);
    assert.equal(debug.adapter(java), undefined, 'no adapter tracker for another debugger');
  });

  test('the end of one of two sessions names the one that remains active', () => {
    const debug = new FakeDebug();
    const t = new SessionTracker(debug);
    const seen = record(t);
    const a = new Session('a');
    const b = new Session('b');
    debug.startSession(a);
    debug.startSession(b);
    debug.activeDebugSession = a;
    debug.fire('end', b);
    debug.fire('end', a);
    assert.deepEqual(seen.filter((l) => l.startsWith('end')), ['end b next a', 'end a next -']);
  });

  test('adapter errors and failed exits are published; a clean exit is not', () => {
    const debug = new FakeDebug();
    const t = new SessionTracker(debug);
    const seen = record(t);
    const s = new Session('1');
    debug.startSession(s);
    debug.adapter(s)?.onError?.(new Error('broken pipe'));
    debug.adapter(s)?.onExit?.(0, undefined);
    debug.adapter(s)?.onExit?.(2, undefined);
    debug.adapter(s)?.onExit?.(undefined, 'SIGKILL');
    assert.deepEqual(seen.filter((l) => l.startsWith('fail')), ['fail 1 broken pipe', 'fail 1 2', 'fail 1 SIGKILL']);
  });

  test('dispose unsubscribes from vscode.debug and the adapter trackers', () => {
    const debug = new FakeDebug();
    const t = new SessionTracker(debug);
    assert.ok(debug.listening() > 0);
    t.dispose();
    assert.equal(debug.listening(), 0);
    assert.equal(debug.factories.length, 0);
  });

  test('the hub follows the tracker: a connected session is asked for its VM, whose threads the views then show', async () => {
    const debug = new FakeDebug();
    const t = new SessionTracker(debug);
    const calls: string[] = [];
    const api: HubApi = {
      threads: async (id) => {
        calls.push(`threads ${id}`);
        return { id, threads: [] };
      },
      heapInfo: async () => ({}),
      heapMap: async () => ({}),
      gc: async () => undefined,
      setUpdates: async (id, what, on) => void calls.push(`updates ${id} ${what} ${on}`),
      backend: { on: () => undefined, off: () => undefined },
    } as HubApi;
    const hub = new DdmHub(api, () => undefined);
    const follow = hub.follow(t);
    hub.watch('threads', 1);
    const s = new Session('1', 'ddmbridge', 'Launch Main', {}, { ddmVM: { id: '7' } });
    debug.startSession(s);
    assert.equal(hub.current?.id, 'session:1', 'the views follow the session before it says its VM');
    debug.adapterSends(s, { type: 'event', event: 'process' });
    for (let i = 0; i < 20 && hub.currentVMId !== '7'; i++) {
      await Promise.resolve();
    }
    assert.deepEqual(s.requests, ['ddmVM']);
    assert.equal(hub.currentVMId, '7');
    debug.activeDebugSession = undefined;
    debug.fire('end', s);
    assert.equal(hub.current, null, 'the session ended: nothing to show');
    follow.dispose();
    debug.startSession(new Session('2'));
    assert.equal(hub.current, null, 'the hub no longer follows the sessions');
    hub.dispose();
    t.dispose();
  });
});
