// Records DDM data from a real backend for the webview tests: starts a JVM
// behind `ddmbridge simvm`, monitors it with `ddmbridge serve --stdio`, and
// writes what the views receive (thread snapshots, heap info, a heap map) to
// test/fixtures/ddm-recording.json. Run after `npm run compile-tests`:
//   node scripts/record-ddm.mjs [path/to/ddmbridge]
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const fx = require(path.join(root, 'out/tsc/test/support/fixtures.js'));
const { Backend } = require(path.join(root, 'out/tsc/src/backend/rpc.js'));
const { ControlApi } = require(path.join(root, 'out/tsc/src/backend/api.js'));

const bin = process.argv[2] ? path.resolve(process.argv[2]) : await fx.buildBackend();
const jvm = await fx.startJvm({ suspend: false, args: ['forever'] });
const simPort = await fx.freePort();
const sim = spawn(bin, ['simvm', '--profile', 'art', '--listen', `127.0.0.1:${simPort}`, '--jvm', `127.0.0.1:${jvm.port}`, '--app', 'com.example.recorded', '--threads', '8', '--gc', '700ms'], { stdio: 'ignore' });
await new Promise((r) => setTimeout(r, 500));
const backend = new Backend({ binary: bin, args: ['--scan', `127.0.0.1:${simPort}-${simPort}`, '--debug-port-base', '0', '--current-port', '0'] });
const api = new ControlApi(backend);
try {
  await backend.start();
  const vm = await fx.eventually(async () => (await api.listVMs()).find((v) => v.ddm), 15000, 'the simulated VM');
  const threads = [];
  for (let i = 0; i < 4; i++) {
    threads.push(await backend.request('vm/threads', { id: vm.id }));
    await new Promise((r) => setTimeout(r, 1000));
  }
  const heapInfo = await backend.request('vm/heapInfo', { id: vm.id });
  const heapMap = await backend.request('vm/heapMap', { id: vm.id, gc: true });
  const out = {
    recorded: new Date().toISOString(),
    how: 'scripts/record-ddm.mjs: HotSpot behind `ddmbridge simvm --profile art`, through `ddmbridge serve --stdio`',
    vm,
    threads,
    heapInfo,
    heapMap,
  };
  const file = path.join(root, 'test/fixtures/ddm-recording.json');
  writeFileSync(file, JSON.stringify(out, null, 1) + '\n');
  console.log(`wrote ${path.relative(root, file)}: ${heapMap.pieces.length} pieces, ${threads[0].threads.length} threads`);
} finally {
  await backend.stop();
  sim.kill('SIGKILL');
  jvm.kill();
}
