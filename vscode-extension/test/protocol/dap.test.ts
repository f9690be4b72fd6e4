// The real Go adapter (`ddmbridge dap`, built from this repository) driven by
// Microsoft's DebugClient, debugging a real HotSpot VM: what VS Code itself
// will send, in the order it sends it.

import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import { ControlApi } from '../../src/backend/api';
import { Backend } from '../../src/backend/rpc';
import { dapEvents, dapRequests } from '../../src/ddmProtocol';
import { decodeHeapInfo } from '../../src/heap/heapinfo';
import { decodeHeapMap, heapTotals } from '../../src/heap/heapmap';
import { decodeThreads } from '../../src/threads/threads';
import { buildBackend, compileFixture, eventually, freePort, javaSrcRoot, Jvm, lineOf, sampleJava, startJvm } from '../support/fixtures';

let bin: string;
let classes: string;
const jvms: Jvm[] = [];
let dc: DebugClient | undefined;

before(async () => {
  [bin, classes] = await Promise.all([buildBackend(), compileFixture()]);
});

afterEach(async () => {
  await dc?.stop().catch(() => undefined);
  dc = undefined;
});

/** The body of the first event of this type whose body passes the check. */
function eventMatching(c: DebugClient, type: string, ok: (body: unknown) => boolean, timeoutMs = 15000): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no ${type} event that passes the check within ${timeoutMs} ms`)), timeoutMs);
    const on = (e: DebugProtocol.Event): void => {
      if (ok(e.body)) {
        clearTimeout(t);
        c.removeListener(type, on);
        resolve(e.body);
      }
    };
    c.on(type, on);
  });
}

/** Sends a request and returns the whole response, failed or not (DebugClient keeps only the message). */
function raw(c: DebugClient, command: string, args: unknown): Promise<DebugProtocol.Response> {
  return new Promise((resolve) =>
    (c as unknown as { doSend(cmd: string, a: unknown, cb: (r: DebugProtocol.Response) => void): void }).doSend(command, args, resolve),
  );
}

/** Ends the adapter process without another disconnect (DebugClient.stop would send one and wait forever). */
function stopAdapter(c: DebugClient): void {
  (c as unknown as { stopAdapter(): void }).stopAdapter();
}

after(() => jvms.forEach((j) => j.kill()));

async function client(): Promise<DebugClient> {
  // The adapter's log (stderr) is shown with DAP_STDERR=1.
  const c = new DebugClient(bin, 'dap', 'ddmbridge', { env: { ...process.env } }, process.env.DAP_STDERR === '1');
  c.defaultTimeout = 20000;
  await c.start();
  const init = await c.initializeRequest({
    adapterID: 'ddmbridge',
    clientID: 'vscode',
    linesStartAt1: true,
    columnsStartAt1: true,
    pathFormat: 'path',
    supportsVariableType: true,
    supportsVariablePaging: true,
    supportsRunInTerminalRequest: false,
  });
  assert.equal(init.success, true);
  assert.equal(init.body?.supportsConfigurationDoneRequest, true, 'the adapter must want configurationDone');
  dc = c;
  return c;
}

async function jvm(opts: { suspend: boolean; args?: string[] }): Promise<Jvm> {
  const j = await startJvm(opts);
  jvms.push(j);
  return j;
}

function stopped(c: DebugClient): Promise<DebugProtocol.StoppedEvent> {
  return c.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>;
}

async function topFrame(c: DebugClient, threadId: number): Promise<DebugProtocol.StackFrame> {
  const st = await c.stackTraceRequest({ threadId, startFrame: 0, levels: 20 });
  assert.ok(st.body.stackFrames.length > 0, 'a stopped thread has frames');
  return st.body.stackFrames[0];
}

async function locals(c: DebugClient, frameId: number): Promise<Map<string, DebugProtocol.Variable>> {
  const scopes = await c.scopesRequest({ frameId });
  const scope = scopes.body.scopes.find((s) => /local/i.test(s.name)) ?? scopes.body.scopes[0];
  assert.ok(scope, 'the frame has a scope');
  const vars = await c.variablesRequest({ variablesReference: scope.variablesReference });
  return new Map(vars.body.variables.map((v) => [v.name, v]));
}

/** initialize → attach → initialized → setBreakpoints → configurationDone, as VS Code does it. */
async function attachWithBreakpoint(c: DebugClient, port: number, line: number): Promise<DebugProtocol.SetBreakpointsResponse> {
  const initialized = c.waitForEvent('initialized');
  const attached = c.attachRequest({ hostName: '127.0.0.1', port, sourcePaths: [javaSrcRoot] } as DebugProtocol.AttachRequestArguments);
  await Promise.all([initialized, attached]);
  const bps = await c.setBreakpointsRequest({ source: { path: sampleJava, name: 'Sample.java' }, breakpoints: [{ line }] });
  await c.configurationDoneRequest();
  return bps;
}

describe('ddmbridge dap against HotSpot', () => {
  test('attach, breakpoint, stack, variables, step in/out/over, continue, disconnect', async () => {
    const j = await jvm({ suspend: true });
    const c = await client();
    const loop = lineOf('loop');
    const hit = stopped(c);
    const bps = await attachWithBreakpoint(c, j.port, loop);
    assert.equal(bps.body.breakpoints.length, 1);
    assert.equal(bps.body.breakpoints[0].line ?? loop, loop);

    // Breakpoint.
    const ev = await hit;
    assert.equal(ev.body.reason, 'breakpoint');
    const threadId = ev.body.threadId!;
    const threads = await c.threadsRequest();
    assert.ok(
      threads.body.threads.some((t) => t.id === threadId && /main/.test(t.name)),
      `thread list ${JSON.stringify(threads.body.threads)} has the stopped main thread`,
    );

    // Stack.
    let frame = await topFrame(c, threadId);
    assert.match(frame.name, /main/);
    assert.equal(frame.line, loop);
    assert.equal(path.resolve(frame.source!.path!), sampleJava, 'the frame maps to the source through sourcePaths');

    // Variables.
    let vars = await locals(c, frame.id);
    assert.match(vars.get('greeting')?.value ?? '', /hello/);
    assert.equal(vars.get('total')?.value, '0');
    assert.equal(vars.get('i')?.value, '0');
    const numbers = vars.get('numbers');
    assert.ok(numbers && numbers.variablesReference > 0, 'an array can be expanded');
    const elems = await c.variablesRequest({ variablesReference: numbers.variablesReference });
    assert.deepEqual(
      elems.body.variables.map((v) => v.value),
      ['1', '2', '3'],
    );
    const names = vars.get('names');
    assert.ok(names && names.variablesReference > 0, 'an object can be expanded');
    // A list in its logical view: its size, then its elements and the raw fields.
    assert.equal(names.value, 'ArrayList (size=2)');
    assert.equal(names.indexedVariables, 2);
    const listed = await c.variablesRequest({ variablesReference: names.variablesReference });
    assert.deepEqual(
      listed.body.variables.map((v) => `${v.name}=${v.value}`),
      ['[0]="ada"', '[1]="grace"', '<raw>=ArrayList fields'],
    );

    // Step in: into square().
    let next = stopped(c);
    await c.stepInRequest({ threadId });
    assert.equal((await next).body.reason, 'step');
    frame = await topFrame(c, threadId);
    assert.match(frame.name, /square/);
    assert.equal(frame.line, lineOf('square'));
    vars = await locals(c, frame.id);
    assert.equal(vars.get('x')?.value, '1');

    // Step out: back in main.
    next = stopped(c);
    await c.stepOutRequest({ threadId });
    assert.equal((await next).body.reason, 'step');
    frame = await topFrame(c, threadId);
    assert.match(frame.name, /main/);

    // Step over: still in main, on the loop.
    next = stopped(c);
    await c.nextRequest({ threadId });
    assert.equal((await next).body.reason, 'step');
    frame = await topFrame(c, threadId);
    assert.match(frame.name, /main/);
    assert.ok(frame.line >= loop - 1 && frame.line <= lineOf('after'), `line ${frame.line} is in the loop`);

    // Continue: the breakpoint again, next iteration.
    next = stopped(c);
    await c.continueRequest({ threadId });
    assert.equal((await next).body.reason, 'breakpoint');
    frame = await topFrame(c, threadId);
    assert.equal(frame.line, loop);
    vars = await locals(c, frame.id);
    assert.equal(vars.get('i')?.value, '1');
    assert.equal(vars.get('total')?.value, '1');

    // Disconnect while stopped: the VM must be left running, not suspended.
    await c.disconnectRequest({ terminateDebuggee: false });
    dc = undefined;
    stopAdapter(c);
    assert.equal(await j.exited, 0, `the program finished after the debugger left:\n${j.output()}`);
    assert.match(j.output(), /hello total=14 names=2/);
  });

  test('clearing breakpoints and continuing runs the program to its end', async () => {
    const j = await jvm({ suspend: true });
    const c = await client();
    const hit = stopped(c);
    await attachWithBreakpoint(c, j.port, lineOf('after'));
    const ev = await hit;
    const frame = await topFrame(c, ev.body.threadId!);
    assert.equal(frame.line, lineOf('after'));
    const vars = await locals(c, frame.id);
    assert.equal(vars.get('total')?.value, '14');
    const cleared = await c.setBreakpointsRequest({ source: { path: sampleJava }, breakpoints: [] });
    assert.equal(cleared.body.breakpoints.length, 0);
    const terminated = c.waitForEvent('terminated');
    await c.continueRequest({ threadId: ev.body.threadId! });
    await terminated;
    assert.equal(await j.exited, 0);
  });

  test('launch a Java program: breakpoint, program output, exit code', async () => {
    const c = await client();
    const initialized = c.waitForEvent('initialized');
    const output: string[] = [];
    c.on('output', (e: DebugProtocol.OutputEvent) => output.push(e.body.output));
    const hit = stopped(c);
    const launched = c.launchRequest({
      mainClass: 'fixture.Sample',
      classPaths: [classes],
      sourcePaths: [javaSrcRoot],
      console: 'internalConsole',
    } as DebugProtocol.LaunchRequestArguments);
    await Promise.all([initialized, launched]);
    await c.setBreakpointsRequest({ source: { path: sampleJava }, breakpoints: [{ line: lineOf('after') }] });
    await c.configurationDoneRequest();
    const ev = await hit;
    assert.equal(ev.body.reason, 'breakpoint');
    const frame = await topFrame(c, ev.body.threadId!);
    assert.equal(frame.line, lineOf('after'));
    const exited = c.waitForEvent('exited') as Promise<DebugProtocol.ExitedEvent>;
    const terminated = c.waitForEvent('terminated');
    await c.continueRequest({ threadId: ev.body.threadId! });
    assert.equal((await exited).body.exitCode, 0);
    await terminated;
    assert.match(output.join(''), /hello total=14 names=2/);
  });

  test('DDM in the session: ddmThreads, ddmHeapInfo and ddmHeapMap events the views decode', async () => {
    const j = await jvm({ suspend: false, args: ['forever'] });
    const simPort = await freePort();
    const sim = spawn(bin, ['simvm', '--profile', 'art', '--listen', `127.0.0.1:${simPort}`, '--jvm', `127.0.0.1:${j.port}`, '--gc', '1h'], {
      stdio: 'ignore',
    });
    try {
      const c = await client();
      const initialized = c.waitForEvent('initialized');
      await Promise.all([initialized, c.attachRequest({ hostName: '127.0.0.1', port: simPort, timeout: 10000, waitForVM: true } as DebugProtocol.AttachRequestArguments)]);
      await c.configurationDoneRequest();
      const threadsEv = eventMatching(c, 'ddmThreads', (b) => decodeThreads(b).threads.length > 0);
      const on = await c.customRequest(dapRequests.updates, { threads: true, heapInfo: true, heapMap: true });
      assert.equal(on.success, true);
      const threads = decodeThreads(await threadsEv).threads;
      assert.ok(threads.length > 0 && threads.every((t) => t.name !== ''), `ddmThreads decodes: ${JSON.stringify(threads.slice(0, 2))}`);
      const infoEv = c.waitForEvent('ddmHeapInfo');
      const mapEv = c.waitForEvent('ddmHeapMap');
      await c.customRequest(dapRequests.gc, {});
      const heaps = decodeHeapInfo((await infoEv).body).heaps;
      assert.ok(heaps.length > 0 && heaps[0].sizeBytes > 0, `ddmHeapInfo decodes: ${JSON.stringify(heaps)}`);
      const body = (await mapEv).body as { totals: { bytes: number; freeBytes: number } };
      const t = heapTotals(decodeHeapMap(body));
      assert.ok(t.usedBytes > 0);
      assert.equal(t.usedBytes, body.totals.bytes - body.totals.freeBytes, 'used bytes agree with the adapter');
      assert.equal(t.freeBytes, body.totals.freeBytes, 'free bytes agree with the adapter');
      assert.ok(Object.keys(dapEvents).every((e) => ['ddmThreads', 'ddmHeapInfo', 'ddmHeapMap'].includes(e)));
    } finally {
      sim.kill('SIGKILL');
    }
  });

  test('through the monitor: attach by VM id on serve --dap, DDM flows, the VM stays monitored', { timeout: 90_000 }, async () => {
    const j = await jvm({ suspend: false, args: ['forever'] });
    const simPort = await freePort();
    const dapPort = await freePort();
    const sim = spawn(bin, ['simvm', '--profile', 'art', '--listen', `127.0.0.1:${simPort}`, '--jvm', `127.0.0.1:${j.port}`, '--app', 'com.example.monitored'], {
      stdio: 'ignore',
    });
    const backend = new Backend({
      binary: bin,
      args: ['--scan', `127.0.0.1:${simPort}-${simPort}`, '--debug-port-base', '0', '--current-port', '0', '--dap', `tcp:127.0.0.1:${dapPort}`],
      restart: false,
    });
    const api = new ControlApi(backend);
    try {
      await backend.start();
      assert.deepEqual(await api.dapEndpoint(), { kind: 'tcp', host: '127.0.0.1', port: dapPort });
      const vm = await eventually(async () => (await api.listVMs()).find((v) => v.name === 'com.example.monitored'), 15000, 'the monitored VM');
      // What the extension's DebugAdapterServer does: one TCP connection per session.
      const c = new DebugClient('unused', 'unused', 'ddmbridge');
      await c.start(dapPort);
      dc = c;
      await c.initializeRequest({ adapterID: 'ddmbridge', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
      const hit = stopped(c);
      const initialized = c.waitForEvent('initialized', 20000);
      await Promise.all([initialized, c.attachRequest({ vm: vm.id, sourcePaths: [javaSrcRoot] } as DebugProtocol.AttachRequestArguments)]);
      await c.setBreakpointsRequest({ source: { path: sampleJava }, breakpoints: [{ line: lineOf('tick') }] });
      await c.configurationDoneRequest();
      const ev = await hit;
      const frame = await topFrame(c, ev.body.threadId!);
      assert.match(frame.name, /tick/);
      assert.match((await locals(c, frame.id)).get('n')?.value ?? '', /^\d+$/);
      assert.equal((await eventually(async () => (await api.listVMs()).find((v) => v.id === vm.id && v.debugger), 5000, 'debugger: true')).debugger, true);
      // DDM keeps flowing while the debugger is attached.
      assert.ok(decodeThreads(await api.threads(vm.id)).threads.length > 0, 'vm/threads answers during the session');
      await c.setBreakpointsRequest({ source: { path: sampleJava }, breakpoints: [] });
      await c.disconnectRequest({ terminateDebuggee: false });
      dc = undefined;
      stopAdapter(c);
      await eventually(async () => (await api.listVMs()).find((v) => v.id === vm.id && !v.debugger), 10000, 'the VM monitored again, without a debugger');
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(j.proc.exitCode, null, 'the VM runs on');
    } finally {
      await backend.stop();
      sim.kill('SIGKILL');
    }
  });

  test('errors are responses that say what to do', async () => {
    const c = await client();
    const port = await freePort();
    const failed = await raw(c, 'attach', { hostName: '127.0.0.1', port, timeout: 500 });
    assert.equal(failed.success, false);
    const shown = (failed as DebugProtocol.ErrorResponse).body?.error?.format ?? failed.message ?? '';
    assert.match(shown, new RegExp(`127\\.0\\.0\\.1:${port}`), `the message names the address: ${shown}`);
    assert.match(shown, /-agentlib:jdwp/, `the message says how to start the VM: ${shown}`);
    const unknown = await raw(c, 'noSuchRequest', {});
    assert.equal(unknown.success, false, 'an unknown request gets an error response, not silence');
  });
});
