// The extension's JSON-RPC client (src/backend) against the real
// `ddmbridge serve --stdio`, monitoring a plain HotSpot VM and a HotSpot VM
// behind the simulated DDM VM: the data the VM explorer and the Threads and
// Heap views are built from.

import assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ControlApi } from '../../src/backend/api';
import { Backend, BackendState, isMethodNotFound } from '../../src/backend/rpc';
import { decodeHeapMap, heapTotals, kindNames } from '../../src/heap/heapmap';
import { decodeHeapInfo } from '../../src/heap/heapinfo';
import { decodeThreads } from '../../src/threads/threads';
import { VMInfo } from '../../src/vms';
import { buildBackend, eventually, freePort, Jvm, startJvm } from '../support/fixtures';

let bin: string;
let plain: Jvm;
let behindSim: Jvm;
let sim: ChildProcess;
let simPort: number;
let backend: Backend;
let api: ControlApi;
const notes: { method: string; params: unknown }[] = [];

before(async () => {
  bin = await buildBackend();
  [plain, behindSim] = await Promise.all([
    startJvm({ suspend: false, args: ['forever'] }),
    startJvm({ suspend: false, args: ['forever'] }),
  ]);
  simPort = await freePort();
  sim = spawn(bin, ['simvm', '--profile', 'art', '--listen', `127.0.0.1:${simPort}`, '--jvm', `127.0.0.1:${behindSim.port}`, '--app', 'com.example.sim', '--gc', '500ms'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let simErr = '';
  sim.stderr!.on('data', (d: Buffer) => (simErr += d.toString()));
  await eventually(
    () =>
      new Promise<boolean>((resolve) => {
        const s = net.connect(simPort, '127.0.0.1');
        s.on('connect', () => {
          s.destroy();
          resolve(true);
        });
        s.on('error', () => resolve(false));
      }),
    10000,
    `simvm listening (${simErr})`,
  );
  backend = new Backend({
    binary: bin,
    args: ['--scan', `127.0.0.1:${plain.port}-${plain.port},127.0.0.1:${simPort}-${simPort}`, '--debug-port-base', '0', '--current-port', '0'],
    logLevel: 'debug',
  });
  backend.on('notification', (method: string, params: unknown) => notes.push({ method, params }));
  api = new ControlApi(backend);
  await backend.start();
});

after(async () => {
  await backend?.stop();
  sim?.kill('SIGKILL');
  plain?.kill();
  behindSim?.kill();
});

async function vmAt(port: number): Promise<VMInfo> {
  return eventually(async () => (await api.listVMs()).find((v) => v.address.endsWith(`:${port}`)), 15000, `a VM at port ${port}`);
}

describe('ddmbridge serve --stdio through the extension client', () => {
  test('vms/list finds both VMs, vms/added announced them', async () => {
    const hotspot = await vmAt(plain.port);
    const ddm = await vmAt(simPort);
    assert.equal(hotspot.ddm, false);
    assert.equal(ddm.ddm, true);
    assert.notEqual(hotspot.id, ddm.id);
    assert.ok(
      notes.some((n) => n.method === 'vms/added'),
      `notifications: ${notes.map((n) => n.method).join(', ')}`,
    );
  });

  test('vm/threads of a plain JVM, from JDWP', async () => {
    const vm = await vmAt(plain.port);
    const threads = decodeThreads(await api.threads(vm.id));
    assert.equal(threads.id, vm.id);
    assert.ok(
      threads.threads.some((t) => t.name === 'main'),
      `threads: ${threads.threads.map((t) => t.name).join(', ')}`,
    );
  });

  test('thread updates stream as vm/threads notifications', async () => {
    const vm = await vmAt(simPort);
    await api.setUpdates(vm.id, 'threads', true);
    const n = await eventually(() => notes.find((x) => x.method === 'vm/threads' && (x.params as { id: string }).id === vm.id), 15000, 'a vm/threads notification');
    assert.ok(decodeThreads(n.params).threads.length > 0);
    await api.setUpdates(vm.id, 'threads', false);
  });

  test('heap info and a heap map of the DDM VM decode, and the totals agree with the backend', async () => {
    const vm = await vmAt(simPort);
    const info = decodeHeapInfo(await api.heapInfo(vm.id)).heaps;
    assert.ok(info.length > 0, 'HPIF data');
    assert.ok(info[0].sizeBytes >= info[0].allocatedBytes);
    const raw = (await api.heapMap(vm.id, true)) as { totals: { bytes: number; freeBytes: number; byKind: Record<string, number> } };
    const map = decodeHeapMap(raw);
    assert.ok(map.pieces.length > 0, 'the map has pieces');
    const t = heapTotals(map);
    assert.equal(t.spanBytes, raw.totals.bytes, 'bytes covered');
    assert.equal(t.freeBytes, raw.totals.freeBytes, 'free bytes');
    for (const k of t.kinds) {
      assert.equal(k.bytes, raw.totals.byKind[k.name] ?? 0, `bytes of kind ${k.name}`);
    }
    assert.deepEqual(map.legend.map((l) => l.key), ['free', ...kindNames, 'gap'], 'the legend the backend sends');
    assert.ok(map.styles.every((s) => /^#[0-9a-f]{6}$/.test(s.color)), 'styles carry their colours');
  });

  test('vms/select makes a VM current', async () => {
    const vm = await vmAt(plain.port);
    await api.selectVM(vm.id);
    const now = await eventually(async () => (await api.listVMs()).find((v) => v.id === vm.id && v.current), 5000, 'the VM current');
    assert.equal(now.current, true);
  });

  test('vm/debugAddress: the monitor maps a VM, and "current", to its pass-through port', async () => {
    const vm = await vmAt(plain.port);
    const own = await api.debugAddress(vm.id);
    assert.equal(own.id, vm.id);
    assert.equal(own.port, vm.debugPort, `the VM's own port (${JSON.stringify(own)})`);
    await api.selectVM(vm.id);
    const cur = await api.debugAddress('current');
    assert.equal(cur.id, vm.id, 'current names the VM current now');
    assert.equal((await api.status()).currentAddress?.endsWith(`:${cur.port}`), true, 'the current-VM port');
    await assert.rejects(api.debugAddress('no-such-vm'), /no such VM/);
  });

  test('dap/checkConfig: the adapter validates launch configurations, in words', async () => {
    await api.checkConfig({ request: 'launch', mainClass: 'com.example.App' });
    await api.checkConfig({ request: 'attach', vm: 'current' });
    await assert.rejects(api.checkConfig({ request: 'launch' }), (e: unknown) => {
      assert.equal((e as { code?: number }).code, -32602);
      assert.match(String((e as Error).message), /field "mainClass" is required/);
      return true;
    });
    await assert.rejects(api.checkConfig({ request: 'attach', vm: 'current', port: 5005 }), /give only one of/);
  });

  test('a method the backend lacks is "method not found"', async () => {
    await assert.rejects(backend.request('no/such'), (e: unknown) => isMethodNotFound(e));
  });

  test('dap/address: a user-only socket for DAP sessions through the monitor', async () => {
    const ep = await api.dapEndpoint();
    assert.equal(ep?.kind, 'pipe', `endpoint ${JSON.stringify(ep)}`);
    const st = fs.statSync((ep as { path: string }).path);
    assert.ok(st.isSocket(), 'a unix socket');
    assert.equal(st.mode & 0o077, 0, 'not accessible to group or others');
  });

  test('a backend that dies is restarted and answers again', async () => {
    const states: BackendState[] = [];
    const onState = (s: BackendState): void => {
      states.push(s);
    };
    backend.on('state', onState);
    const pid = backend.pid!;
    process.kill(pid, 'SIGKILL');
    await eventually(() => states.includes('restarting') && backend.state === 'running' && backend.pid !== pid, 15000, 'a restart');
    backend.off('state', onState);
    await vmAt(plain.port);
  });

  test('a missing binary fails with a clear message', async () => {
    const b = new Backend({ binary: '/nonexistent/ddmbridge', restart: false });
    await assert.rejects(b.start(), /the ddmbridge binary \/nonexistent\/ddmbridge was not found/);
    assert.equal(b.state, 'failed');
  });
});
