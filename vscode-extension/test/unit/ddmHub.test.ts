import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { DdmHub, HubApi, HubSession } from '../../src/ddmHub';
import type { VMInfo } from '../../src/vms';

/** The backend as the hub sees it: calls are recorded, notifications pushed by the test. */
class FakeApi implements HubApi {
  calls: string[] = [];
  private handlers = new Map<string, Set<(p: unknown) => void>>();
  threadsBody: (id: string) => unknown = (id) => ({ id, threads: [] });
  backend = {
    on: (m: string, fn: (p: unknown) => void) => {
      this.handlers.set(m, (this.handlers.get(m) ?? new Set()).add(fn));
    },
    off: (m: string, fn: (p: unknown) => void) => {
      this.handlers.get(m)?.delete(fn);
    },
  };
  notify(method: string, params: unknown): void {
    this.handlers.get(method)?.forEach((fn) => fn(params));
  }
  listening(method: string): number {
    return this.handlers.get(method)?.size ?? 0;
  }
  async threads(id: string): Promise<unknown> {
    this.calls.push(`threads ${id}`);
    return this.threadsBody(id);
  }
  async heapInfo(id: string): Promise<unknown> {
    this.calls.push(`heapInfo ${id}`);
    return { id, heaps: [] };
  }
  async heapMap(id: string, gc: boolean): Promise<unknown> {
    this.calls.push(`heapMap ${id}${gc ? ' gc' : ''}`);
    return { id, map: true };
  }
  async gc(id: string): Promise<void> {
    this.calls.push(`gc ${id}`);
  }
  async setUpdates(id: string, what: 'threads' | 'heap', on: boolean): Promise<void> {
    this.calls.push(`updates ${id} ${what} ${on}`);
  }
}

/** A debug session: requests answered by the test's table, recorded. */
class FakeSession implements HubSession {
  readonly type = 'ddmbridge';
  requests: string[] = [];
  constructor(
    readonly id: string,
    readonly name: string,
    readonly configuration: Record<string, unknown>,
    private readonly answers: Record<string, (args: unknown) => unknown>,
  ) {}
  async customRequest(command: string, args?: unknown): Promise<unknown> {
    this.requests.push(`${command} ${JSON.stringify(args ?? {})}`);
    const a = this.answers[command];
    if (!a) {
      throw new Error(`unknown request ${command}`);
    }
    return a(args);
  }
}

/** Lets pending promise callbacks run (no timers involved). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) {
    await Promise.resolve();
  }
}

const plainJvm = (id: string): VMInfo => ({ id, name: 'ThreadStates', ddm: false }) as unknown as VMInfo;

function setup(ddm: Record<string, boolean> = {}) {
  const api = new FakeApi();
  const logs: string[] = [];
  const hub = new DdmHub(api, (l) => logs.push(l), (id) => `vm ${id}`, (id) => ddm[id]);
  const got: { kind: string; body: unknown }[] = [];
  const errors: string[] = [];
  const noDdm: string[] = [];
  hub.onDidReceive((e) => got.push(e));
  hub.onDidFail((m) => errors.push(m));
  hub.onDidFindNoDdm((m) => noDdm.push(m));
  return { api, hub, logs, got, errors, noDdm };
}

describe('DdmHub', () => {
  // No timer-driven polling: the hub never sets a timer (the backend pushes).
  let timers: string[] = [];
  const saved = { setTimeout: globalThis.setTimeout, setInterval: globalThis.setInterval };
  beforeEach(() => {
    timers = [];
    globalThis.setTimeout = ((...a: Parameters<typeof setTimeout>) => {
      timers.push('setTimeout');
      return saved.setTimeout(...a);
    }) as typeof setTimeout;
    globalThis.setInterval = ((...a: Parameters<typeof setInterval>) => {
      timers.push('setInterval');
      return saved.setInterval(...a);
    }) as typeof setInterval;
  });
  afterEach(() => {
    globalThis.setTimeout = saved.setTimeout;
    globalThis.setInterval = saved.setInterval;
    assert.deepEqual(timers, [], 'the hub set no timer');
  });

  test('an F5-launched plain JVM: the session names its monitored VM, threads stream through the backend, a "no DDM" heap does not stop them', async () => {
    const { api, hub, got, noDdm } = setup({ '7': false });
    const s = new FakeSession('s1', 'Launch ThreadStates', { request: 'launch', mainClass: 'ThreadStates' }, { ddmVM: () => ({ id: '7' }) });
    hub.watch('threads', 1);
    hub.sessionStarted(s);
    await settle();
    // Nothing is asked of the session before it is connected, and no DDM request at all.
    assert.deepEqual(s.requests, []);
    await hub.sessionReady(s);
    await settle();
    assert.deepEqual(s.requests, ['ddmVM {}'], 'only ddmVM is asked of the session');
    assert.equal(hub.currentVMId, '7');
    assert.deepEqual(hub.current, { id: '7', name: 'vm 7', source: 'backend' });
    assert.ok(api.calls.includes('updates 7 threads true'), api.calls.join('; '));
    assert.ok(api.calls.includes('threads 7'), 'the threads asked once when the target is known');
    // The heap view opens: the VM has no DDM, said once, and heap updates are not turned on.
    hub.watch('heap', 1);
    await settle();
    assert.equal(noDdm.length, 1);
    assert.match(noDdm[0], /vm 7 is a plain JVM without DDM/);
    assert.ok(!api.calls.some((c) => c.startsWith('updates 7 heap true')), api.calls.join('; '));
    // Threads keep coming, pushed: each vm/threads of VM 7 is delivered as sent; another VM's is not.
    got.length = 0;
    const calls = api.calls.length;
    const body = { id: '7', threads: [{ id: 1, name: 'spinner', state: 'running', suspended: false, tid: 5, utime: 10, stime: 1 }] };
    api.notify('vm/threads', body);
    api.notify('vm/threads', { id: '8', threads: [] });
    api.notify('vm/threads', body);
    assert.deepEqual(got, [
      { kind: 'threads', body },
      { kind: 'threads', body },
    ]);
    assert.equal(api.calls.length, calls, 'nothing fetched in answer to a notification');
    assert.equal(hub.last('threads'), body);
    // Refresh asks again, threads only (no heap of a plain JVM).
    await hub.refresh();
    assert.deepEqual(api.calls.slice(calls), ['threads 7']);
  });

  test('the heap map is pushed (vm/heapMap), never fetched again after vm/heap', async () => {
    const { api, hub, got } = setup({ '3': true });
    hub.focusVM({ id: '3', name: 'com.example.app', ddm: true } as unknown as VMInfo);
    hub.watch('heap', 1);
    await settle();
    assert.ok(api.calls.includes('updates 3 heap true'), api.calls.join('; '));
    const calls = api.calls.length;
    got.length = 0;
    api.notify('vm/heap', { id: '3', heaps: [{ heapId: 1 }] });
    api.notify('vm/heapMap', { id: '3', heapId: 1, pieces: [] });
    await settle();
    assert.deepEqual(
      got.map((g) => g.kind),
      ['heapInfo', 'heapMap'],
    );
    assert.equal(api.calls.length, calls, `no request after the notifications: ${api.calls.slice(calls).join('; ')}`);
    // GC is one request for the fresh map (and the info).
    await hub.gc();
    assert.deepEqual(api.calls.slice(calls).sort(), ['heapInfo 3', 'heapMap 3 gc']);
  });

  test('the explorer\'s VM, then another: the first VM\'s updates are turned off; closing the view turns them off', async () => {
    const { api, hub } = setup();
    hub.watch('threads', 1);
    hub.focusVM(plainJvm('1'));
    await settle();
    hub.focusVM(plainJvm('2'));
    await settle();
    assert.ok(api.calls.includes('updates 1 threads true'));
    assert.ok(api.calls.includes('updates 1 threads false'), api.calls.join('; '));
    assert.ok(api.calls.includes('updates 2 threads true'));
    hub.watch('threads', -1);
    await settle();
    assert.ok(api.calls.includes('updates 2 threads false'), api.calls.join('; '));
  });

  test('a session without a monitor (ddmVM answers ""): its DDM events are the road, asked for with ddmUpdates', async () => {
    const { hub, got } = setup();
    const s = new FakeSession('s2', 'stand-alone', { request: 'attach', hostName: '127.0.0.1', port: 8000 }, {
      ddmVM: () => ({ id: '' }),
      ddmUpdates: () => ({}),
    });
    hub.watch('threads', 1);
    hub.sessionStarted(s);
    await hub.sessionReady(s);
    await settle();
    assert.deepEqual(s.requests, ['ddmVM {}', 'ddmUpdates {"threads":true,"heapInfo":false,"heapMap":false}']);
    assert.equal(hub.current?.source, 'session');
    const body = { id: '127.0.0.1:8000', threads: [] };
    hub.sessionEvent(s, 'ddmThreads', body);
    hub.sessionEvent(s, 'output', { output: 'x' });
    assert.deepEqual(got, [{ kind: 'threads', body }]);
  });

  test('a monitored session\'s DDM events are ignored: one road', async () => {
    const { api, hub, got } = setup({ '4': true });
    const s = new FakeSession('s3', 'Attach', { request: 'attach', vm: '4' }, { ddmVM: () => ({ id: '4' }) });
    hub.watch('threads', 1);
    hub.sessionStarted(s);
    await hub.sessionReady(s);
    await settle();
    got.length = 0;
    hub.sessionEvent(s, 'ddmThreads', { id: '4', threads: [] });
    assert.deepEqual(got, []);
    api.notify('vm/threads', { id: '4', threads: [] });
    assert.equal(got.length, 1);
  });

  test('a stand-alone session on a VM without DDM says why there are no threads', async () => {
    const { hub, errors } = setup();
    const s = new FakeSession('s4', 'plain', {}, {
      ddmVM: () => ({ id: '' }),
      ddmUpdates: () => {
        throw new Error('DDM not available: this VM does not speak DDM');
      },
    });
    hub.watch('threads', 1);
    hub.sessionStarted(s);
    await hub.sessionReady(s);
    await settle();
    assert.equal(errors.length, 1);
    assert.match(errors[0], /speaks no DDM and no ddmbridge monitor watches it/);
  });

  test('the session ends: the views have no target and the backend stops streaming', async () => {
    const { api, hub } = setup();
    const targets: unknown[] = [];
    hub.onDidChangeTarget((t) => targets.push(t));
    const s = new FakeSession('s5', 'Launch', {}, { ddmVM: () => ({ id: '9' }) });
    hub.watch('threads', 1);
    hub.sessionStarted(s);
    await hub.sessionReady(s);
    await settle();
    hub.sessionEnded(s, undefined);
    await settle();
    assert.equal(targets.at(-1), null);
    assert.ok(api.calls.includes('updates 9 threads false'), api.calls.join('; '));
  });

  test('a restarted backend has the views\' updates turned on again, and the threads asked once', async () => {
    const { api, hub } = setup();
    hub.watch('threads', 1);
    hub.focusVM(plainJvm('5'));
    await settle();
    const calls = api.calls.length;
    api.notify('state', 'running');
    await settle();
    assert.deepEqual(api.calls.slice(calls), ['updates 5 threads true', 'threads 5']);
  });

  test('dispose stops listening to the backend', () => {
    const { api, hub } = setup();
    assert.equal(api.listening('vm/threads'), 1);
    hub.dispose();
    assert.equal(api.listening('vm/threads'), 0);
    assert.equal(api.listening('vm/heapMap'), 0);
  });
});
