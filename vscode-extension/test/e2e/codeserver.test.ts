// The packaged extension in a real VS Code: code-server 4.139.1 (Node 24)
// served to Debian's headless Chromium. Installs ddmbridge.vsix, opens the
// Java fixture, sets a breakpoint, attaches to the current VM (a HotSpot VM
// behind `ddmbridge simvm`, monitored by the extension's own backend), sees
// "Paused on breakpoint" and the variables, opens the heap view, continues
// and disconnects. Run with `npm run test:e2e` (which packages first).

import assert from 'node:assert/strict';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, FrameLocator, Locator, Page } from 'playwright-core';
import { launchChromium } from '../support/browser';
import { bigHeapJava, buildBackend, compileFixture, compileKotlinFixture, compileStates, eventually, extRoot, freePort, Jvm, kotlinLine, lineOf, repoRoot, sampleJava, slowPoolJava, startJvm, statesJava, tmpDir, vdemoJava, workerJava } from '../support/fixtures';
import { countColor, decodePng } from '../support/png';

const vsix = path.join(extRoot, 'ddmbridge.vsix');
const shots = path.join(extRoot, 'test-results');
const t0 = Date.now();
const since = (): string => `${((Date.now() - t0) / 1000).toFixed(1)}s`;

let cs: ChildProcess | undefined;
let csLog = '';
let browser: Browser | undefined;
let jvm: Jvm | undefined;
let sim: ChildProcess | undefined;
let adbServer: ChildProcess | undefined;
let device: ChildProcess | undefined;
let adbPort = 0;
let adbHome = '';
let backendBin = '';
let page: Page;
let url: string;
let userDataDir: string;
let wsDir: string;
/** While this file exists, the backend holds each dominator tree at its first look at its context (DDMBRIDGE_HPROF_TREE_GATE). */
let hprofTreeGate: string;
/** Scanned from the start; the plain JVM of the HPROF test listens there. */
let plainPort: number;
/** The class folder of the F5-launched States program (its hot code replace output folder). */
let statesClasses = '';
let settingsFile = '';

function log(msg: string): void {
  process.stderr.write(`# e2e ${since()}: ${msg}\n`);
}

interface Setup {
  node: string;
  entry: string;
}

before(async () => {
  assert.ok(fs.existsSync(vsix), `${vsix} is missing: run "npm run package" (npm run test:e2e does)`);
  fs.mkdirSync(shots, { recursive: true });
  const setup = JSON.parse(
    execFileSync(process.execPath, [path.join(extRoot, 'scripts', 'e2e-setup.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] }).toString(),
  ) as Setup;
  log('code-server ready');

  const root = tmpDir();
  const dirs = {
    userData: path.join(root, 'cs-user'),
    extensions: path.join(root, 'cs-extensions'),
    xdg: path.join(root, 'cs-xdg'),
    ws: path.join(root, 'workspace'),
  };
  Object.values(dirs).forEach((d) => fs.mkdirSync(d, { recursive: true }));
  userDataDir = dirs.userData;
  wsDir = dirs.ws;
  hprofTreeGate = path.join(root, 'hprof-tree-gate');
  const env = {
    ...process.env,
    DDMBRIDGE_HPROF_TREE_GATE: hprofTreeGate,
    HOME: dirs.xdg,
    XDG_CONFIG_HOME: path.join(dirs.xdg, 'config'),
    XDG_DATA_HOME: path.join(dirs.xdg, 'data'),
    XDG_CACHE_HOME: path.join(dirs.xdg, 'cache'),
    PATH: `${path.dirname(setup.node)}${path.delimiter}${process.env.PATH}`,
  };

  // The debuggee: HotSpot running fixture.Sample forever, behind the simulated DDM VM.
  // The same binary the .vsix carries (npm run package built it), else a fresh build.
  const bundled = path.join(extRoot, 'bin', 'ddmbridge');
  const bin = !process.env.DDMBRIDGE_BIN && fs.existsSync(bundled) ? bundled : await buildBackend();
  jvm = await startJvm({ suspend: false, args: ['forever'] });
  const simPort = await freePort();
  sim = spawn(bin, ['simvm', '--profile', 'art', '--listen', `127.0.0.1:${simPort}`, '--jvm', `127.0.0.1:${jvm.port}`, '--app', 'com.example.e2e', '--gc', '1s'], {
    stdio: 'ignore',
  });

  // A private adb server the backend follows (the Android scenario connects
  // a simulated current-Android device to it), run in the foreground so it
  // is killed by pid.
  backendBin = bin;
  adbPort = await freePort();
  adbHome = path.join(root, 'adb-home');
  fs.mkdirSync(adbHome, { recursive: true });
  adbServer = spawn('adb', ['-P', String(adbPort), 'nodaemon', 'server'], { env: { ...process.env, HOME: adbHome }, stdio: 'ignore' });
  await eventually(
    () =>
      new Promise<boolean>((resolve) => {
        const c = net.connect(adbPort, '127.0.0.1', () => {
          c.destroy();
          resolve(true);
        });
        c.on('error', () => resolve(false));
      }),
    60000,
    'the adb server listening',
  );

  // Workspace: the Java source, and a launch.json that attaches to the current VM.
  const src = path.join(dirs.ws, 'src', 'fixture');
  fs.mkdirSync(src, { recursive: true });
  fs.copyFileSync(sampleJava, path.join(src, 'Sample.java'));
  fs.copyFileSync(statesJava, path.join(src, 'States.java'));
  fs.copyFileSync(slowPoolJava, path.join(src, 'SlowPool.java'));
  // The source of the frames the simulated VM's allocation records name.
  fs.mkdirSync(path.join(dirs.ws, 'src', 'com', 'example', 'simvm'), { recursive: true });
  fs.copyFileSync(workerJava, path.join(dirs.ws, 'src', 'com', 'example', 'simvm', 'Worker.java'));
  statesClasses = await compileStates();
  const slowPoolClasses = await compileStates(slowPoolJava, path.join(tmpDir(), 'slowpool-classes'));
  fs.mkdirSync(path.join(dirs.ws, '.vscode'));
  fs.writeFileSync(
    path.join(dirs.ws, '.vscode', 'launch.json'),
    JSON.stringify(
      {
        version: '0.2.0',
        configurations: [
          {
            type: 'ddmbridge',
            request: 'attach',
            name: 'Attach to current VM',
            vm: 'current',
            sourcePaths: ['${workspaceFolder}/src'],
            // The JVM's class folder: rebuilt classes there are hot-replaced.
            outputFolders: [await compileFixture()],
          },
          // F5 on a JVM: the Threads panel's program.
          {
            type: 'ddmbridge',
            request: 'launch',
            name: 'Launch States',
            mainClass: 'fixture.States',
            classPaths: [statesClasses],
            sourcePaths: ['${workspaceFolder}/src'],
          },
          // Issue 35's app: a 3 s toString in four workers' Locals.
          {
            type: 'ddmbridge',
            request: 'launch',
            name: 'Launch SlowPool',
            mainClass: 'fixture.SlowPool',
            args: ['400'],
            classPaths: [slowPoolClasses],
            sourcePaths: ['${workspaceFolder}/src'],
          },
          // VS Code's picker: the VM is chosen when the session starts.
          { type: 'ddmbridge', request: 'attach', name: 'Pick a VM', processId: '${command:ddmbridge.pickVM}' },
        ],
      },
      null,
      2,
    ),
  );
  const currentPort = await freePort();
  plainPort = await freePort();
  fs.mkdirSync(path.join(dirs.userData, 'User'), { recursive: true });
  settingsFile = path.join(dirs.userData, 'User', 'settings.json');
  fs.writeFileSync(
    settingsFile,
    JSON.stringify(
      {
        'security.workspace.trust.enabled': false,
        'workbench.startupEditor': 'none',
        'remote.autoForwardPorts': false,
        'chat.disableAIFeatures': true,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        'telemetry.telemetryLevel': 'off',
        'workbench.tips.enabled': false,
        'extensions.ignoreRecommendations': true,
        'debug.openDebug': 'openOnDebugBreak',
        'ddmbridge.serveArgs': [
          '--scan',
          `127.0.0.1:${simPort}-${simPort},127.0.0.1:${plainPort}-${plainPort}`,
          '--debug-port-base',
          '0',
          '--current-port',
          String(currentPort),
          '--adb',
          `127.0.0.1:${adbPort}`,
        ],
        'ddmbridge.logLevel': 'debug',
      },
      null,
      2,
    ),
  );

  // Install the .vsix the way a user would.
  execFileSync(setup.node, [setup.entry, '--extensions-dir', dirs.extensions, '--user-data-dir', dirs.userData, '--install-extension', vsix], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const installed = fs.readdirSync(dirs.extensions).find((d) => d.startsWith('ddmbridge.ddmbridge-'));
  assert.ok(installed, `the .vsix is installed (${fs.readdirSync(dirs.extensions).join(', ')})`);
  assert.ok(
    fs.statSync(path.join(dirs.extensions, installed, 'bin', 'ddmbridge')).mode & 0o100,
    'the bundled backend keeps its executable bit',
  );
  log(`installed ${installed}`);

  const port = await freePort();
  cs = spawn(
    setup.node,
    [
      setup.entry,
      '--auth',
      'none',
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--user-data-dir',
      dirs.userData,
      '--extensions-dir',
      dirs.extensions,
      dirs.ws,
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  cs.stdout!.on('data', (d: Buffer) => (csLog += d.toString()));
  cs.stderr!.on('data', (d: Buffer) => (csLog += d.toString()));
  url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(dirs.ws)}`;
  await eventually(
    async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.ok,
    30000,
    `code-server /healthz\n${csLog}`,
  );
  log('code-server up');
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
});

after(async () => {
  if (page) {
    await page.screenshot({ path: path.join(shots, 'e2e-last.png') }).catch(() => undefined);
  }
  await browser?.close().catch(() => undefined);
  cs?.kill('SIGTERM');
  sim?.kill('SIGKILL');
  device?.kill('SIGKILL');
  adbServer?.kill('SIGKILL');
  jvm?.kill();
});

/** Runs a command through the palette, clicking the row whose label matches exactly. */
async function palette(label: string): Promise<void> {
  await eventually(
    async () => {
      await page.keyboard.press('Escape');
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible', timeout: 15000 });
      await input.fill(`>${label}`);
      const row = page.locator('.quick-input-list .monaco-list-row').filter({
        has: page.locator('.label-name', { hasText: new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }),
      });
      await row.first().waitFor({ state: 'visible', timeout: 10000 });
      await row.first().click();
      return true;
    },
    120000,
    `the command "${label}" in the palette`,
  );
}

/** Runs a palette command that opens a picker and picks row, retrying while the row is not listed yet. */
async function paletteThenPick(label: string, row: Locator, timeout: number, what: string): Promise<void> {
  await eventually(
    async () => {
      await palette(label);
      try {
        await row.first().waitFor({ state: 'visible', timeout: 15000 });
      } catch {
        await page.keyboard.press('Escape');
        return false;
      }
      await row.first().click();
      return true;
    },
    timeout,
    what,
  );
}

/** Waits for a ready webview whose inner frame has an element matching selector, and returns that frame. */
async function webviewWith(selector: string, timeout: number, what: string): Promise<FrameLocator> {
  return eventually(
    async () => {
      const frames = page.locator('iframe.webview.ready');
      for (let i = 0; i < (await frames.count()); i++) {
        const f = frames.nth(i).contentFrame().frameLocator('iframe#active-frame');
        if ((await f.locator(selector).count()) > 0) {
          return f;
        }
      }
      return undefined;
    },
    timeout,
    what,
  );
}

function findFiles(dir: string, re: RegExp): string[] {
  if (!fs.existsSync(dir)) {
    return [];
  }
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? findFiles(p, re) : re.test(e.name) ? [p] : [];
  });
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(shots, `${name}.png`) });
}

test('code-server: breakpoint, Paused on breakpoint, variables, heap view, continue, disconnect', { timeout: 900_000 }, async () => {
  await page.goto(url);
  await page.locator('.monaco-workbench').waitFor({ timeout: 180000 });
  log('workbench visible');

  // Open the Java file.
  await eventually(
    async () => {
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+P');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible', timeout: 15000 });
      await input.fill('Sample.java');
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Sample.java' });
      await row.first().waitFor({ state: 'visible', timeout: 15000 });
      await row.first().click();
      await page.locator('.tab', { hasText: 'Sample.java' }).waitFor({ timeout: 15000 });
      return true;
    },
    180000,
    'Sample.java open',
  );
  await page.locator('.monaco-editor .view-lines').first().waitFor();
  log('Sample.java open');

  // The VM explorer lists the monitored VM.
  await palette('View: Show ddmbridge');
  await page.getByText('com.example.e2e').first().waitFor({ timeout: 90000 });
  // Its state: current (the only VM), DDM-aware (it answered HELO).
  await eventually(
    async () => {
      const row = (await page.locator('.monaco-list-row', { hasText: 'com.example.e2e' }).first().textContent()) ?? '';
      return /current/.test(row) && /DDM/.test(row);
    },
    15000,
    'the explorer row showing "current" and "DDM"',
  );
  assert.ok(await page.getByText('This computer').first().isVisible(), 'VMs are grouped under their device');
  await shot('e2e-vm-explorer');
  log('VM explorer shows the VM');

  // Breakpoint on tick()'s last line.
  const line = lineOf('tick');
  await page.locator('.monaco-editor .view-lines').first().click();
  await page.keyboard.press('Control+G');
  await page.locator('.quick-input-widget input').fill(`:${line}`);
  await page.keyboard.press('Enter');
  await page.keyboard.press('F9');
  await page.locator('.monaco-editor .codicon-debug-breakpoint').first().waitFor({ timeout: 30000 });
  log(`breakpoint at line ${line}`);

  // Start the "Attach to current VM" configuration.
  await palette('Debug: Start Debugging');
  await page.getByText('Paused on breakpoint').first().waitFor({ timeout: 180000 });
  log('Paused on breakpoint');
  await shot('e2e-paused');

  // The call stack shows tick(), the variables its argument n.
  const tickFrame = pane('Call Stack').locator('.monaco-list-row', { hasText: 'tick' });
  await eventually(
    async () => {
      if (await tickFrame.first().isVisible()) {
        return true;
      }
      await pane('Call Stack').locator('.monaco-list-row', { hasText: 'main' }).first().click();
      await page.keyboard.press('ArrowRight');
      await tickFrame.first().waitFor({ timeout: 2000 });
      return true;
    },
    20000,
    'the tick frame in the call stack',
  );
  const nPattern = /^\s*n\s*[=:]\s*(-?\d+)\s*$/;
  const nRow = pane('Variables').locator('.monaco-list-row').filter({ hasText: nPattern });
  const nValue = async (): Promise<number> => Number(nPattern.exec((await nRow.first().textContent({ timeout: 2000 })) ?? '')?.[1]);
  await eventually(
    async () => {
      if (await nRow.first().isVisible()) {
        return true;
      }
      const locals = pane('Variables').locator('.monaco-list-row', { hasText: 'Locals' }).first();
      if ((await locals.getAttribute('aria-expanded')) !== 'true') {
        await locals.click();
        await page.keyboard.press('ArrowRight');
      }
      await nRow.first().waitFor({ timeout: 2000 });
      return true;
    },
    20000,
    'the variable n',
  );
  const n1 = await nValue();
  assert.ok(Number.isInteger(n1) && n1 >= 0, `n is an int (${n1})`);
  await shot('e2e-variables');
  log(`variables: n = ${n1}`);

  // Hot code replace: a rebuild writes a new Sample.class into the session's
  // output folder; the extension sends it to the VM on its own ("auto") and
  // says what it replaced.
  const edited = path.join(tmpDir(), 'edited', 'fixture');
  fs.mkdirSync(edited, { recursive: true });
  fs.writeFileSync(
    path.join(edited, 'Sample.java'),
    fs.readFileSync(sampleJava, 'utf8').replace('int result = x * x; // TAG:square', 'int result = x * x + 1; // TAG:square'),
  );
  execFileSync('javac', ['-g', '-d', await compileFixture(), path.join(edited, 'Sample.java')], { timeout: 120_000 });
  await page.getByText('Hot code replace: replaced 1 class (fixture.Sample)').first().waitFor({ timeout: 180000 });
  await shot('e2e-hot-code-replace');
  log('hot code replace reported');

  // main's list in its logical view: its size, then its elements.
  const namesRow = pane('Variables').locator('.monaco-list-row').filter({ hasText: /names\s*[=:]\s*ArrayList \(size=2\)/ });
  await eventually(
    async () => {
      if (await namesRow.first().isVisible()) {
        return true;
      }
      await pane('Call Stack').locator('.monaco-list-row', { hasText: 'Sample.main' }).first().click();
      const locals = pane('Variables').locator('.monaco-list-row', { hasText: 'Locals' }).first();
      if ((await locals.getAttribute('aria-expanded')) !== 'true') {
        await locals.click();
        await page.keyboard.press('ArrowRight');
      }
      await namesRow.first().waitFor({ timeout: 2000 });
      return true;
    },
    20000,
    'names shown as ArrayList (size=2) in main\'s frame',
  );
  await namesRow.first().click();
  await page.keyboard.press('ArrowRight');
  await pane('Variables').locator('.monaco-list-row', { hasText: '"grace"' }).first().waitFor({ timeout: 30000 });
  await shot('e2e-logical-list');
  log('logical view: names = ArrayList (size=2) with its elements');

  // The heap view of the same VM, drawn from the backend's heap map.
  await palette('ddmbridge: Show Heap Map');
  const webview: FrameLocator = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  await webview.locator('#legend li').first().waitFor({ timeout: 90000 });
  await webview.locator('#totals tr[data-kind]').first().waitFor({ timeout: 90000 });
  // The title follows once the view knows the session's VM, and says the
  // VM is the simulator (its heap map is made up).
  await eventually(
    async () => (await webview.locator('#vm-title').textContent()) === 'Heap of com.example.e2e (simulated)',
    90000,
    "the heap view titled for the session's VM, simulated (com.example.e2e (simulated))",
  );
  const legend = (await webview.locator('#legend').textContent()) ?? '';
  assert.match(legend, /1-byte array/);
  // The colours are the legend's, as the backend sent them with the map.
  const swatches = await webview.locator('#legend li[data-kind]').evaluateAll((lis) =>
    lis.map((li) => [li.getAttribute('data-kind') ?? '', (li.querySelector('.swatch') as HTMLElement | null)?.style.backgroundColor ?? ''] as const),
  );
  const colorOf = new Map(swatches.map(([k, css]) => [k, (css.match(/\d+/g) ?? []).map(Number) as unknown as [number, number, number]]));
  const heapShot = decodePng(await webview.locator('#heap-canvas').screenshot());
  assert.ok(countColor(heapShot, colorOf.get('free')!) > 0, 'free space drawn in the legend\'s free colour');
  const kindsDrawn = ['object', 'class', '1-byte array', '2-byte array', '4-byte array', '8-byte array'].filter((k) => countColor(heapShot, colorOf.get(k)!) > 0);
  assert.ok(kindsDrawn.length >= 2, `several kinds drawn in their colours (${kindsDrawn.join(', ')})`);
  await shot('e2e-heap');
  log(`heap view: kinds ${kindsDrawn.join(', ')} drawn`);

  // The live Threads panel of the same VM (DDM thread data from the backend).
  await palette('ddmbridge: Show Threads');
  const threadsView = await webviewWith('#threads tr[data-thread]', 90000, 'thread rows in the Threads panel');
  const threadsText = (await threadsView.locator('#threads').textContent()) ?? '';
  assert.match(threadsText, /main/);
  assert.ok((await threadsView.locator('#threads .state[data-state]').count()) > 0, 'states are shown');
  // Stopped at the breakpoint (every thread suspended): the panel says so, not "running".
  // A miss says what the panel showed instead.
  let statesShown = '';
  await eventually(
    async () => {
      const states = await threadsView.locator('#threads .state[data-state]').evaluateAll((els) => els.map((e) => e.getAttribute('data-state') ?? ''));
      statesShown = states.join(', ');
      return states.includes('suspended');
    },
    90000,
    'threads shown as suspended while the debugger holds them',
  ).catch(async (e: Error) => {
    const note = (await threadsView.locator('body').textContent().catch(() => '')) ?? '';
    throw new Error(`${e.message}; states shown: ${statesShown}; panel: ${note.slice(0, 400)}`);
  });
  await shot('e2e-threads');
  log('threads panel shows the VM threads');

  // Continue: the loop comes back to the breakpoint with a larger n.
  await palette('Debug: Continue');
  await eventually(
    async () => {
      const v = await nValue();
      return Number.isInteger(v) && v > n1 ? v : undefined;
    },
    30000,
    'the breakpoint hit again after continue',
  );
  log('continued and stopped again');

  // Disconnect (what the toolbar offers for an attach session): the VM keeps running.
  await palette('Debug: Disconnect');
  await page.getByText('Paused on breakpoint').first().waitFor({ state: 'hidden', timeout: 60000 });
  await shot('e2e-done');
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(jvm!.proc.exitCode, null, `the VM still runs after the debugger left:\n${jvm!.output()}`);

  // The session ran inside the window's backend (its DAP socket), not a second process.
  const channel = findFiles(path.join(userDataDir, 'logs'), /ddmbridge\.log$/)
    .map((f) => fs.readFileSync(f, 'utf8'))
    .join('\n');
  assert.match(channel, /DAP through the backend/, `the ddmbridge output channel:\n${channel}`);
  log('done');
});

// The Memory view: at a stop it lists the VM's classes with their counts; a
// step that allocates shows a class's change since the previous stop
// (Sample.tick keeps a byte[1024] per call); a class opens to its instances.
/**
 * Opens Sample.java (loading the workbench if no earlier test did), sets a
 * breakpoint on tick()'s last line unless one is there, starts "Attach to
 * current VM" (the HotSpot VM behind the simulated ART VM) and waits until
 * it is paused on the breakpoint.
 */
async function pausedInTick(): Promise<void> {
  if (!page.url().startsWith(url.split('?')[0])) {
    await page.goto(url);
    await page.locator('.monaco-workbench').waitFor({ timeout: 180000 });
  }
  await eventually(
    async () => {
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+P');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible', timeout: 15000 });
      await input.fill('Sample.java');
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Sample.java' });
      await row.first().waitFor({ state: 'visible', timeout: 15000 });
      await row.first().click();
      await page.locator('.tab', { hasText: 'Sample.java' }).waitFor({ timeout: 15000 });
      return true;
    },
    180000,
    'Sample.java open',
  );
  if ((await page.locator('.monaco-editor .codicon-debug-breakpoint').count()) === 0) {
    await page.locator('.monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+G');
    await page.locator('.quick-input-widget input').fill(`:${lineOf('tick')}`);
    await page.keyboard.press('Enter');
    await page.keyboard.press('F9');
    await page.locator('.monaco-editor .codicon-debug-breakpoint').first().waitFor({ timeout: 30000 });
  }
  await palette('Debug: Select and Start Debugging');
  const configRow = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Attach to current VM' });
  await configRow.first().waitFor({ timeout: 60000 });
  await configRow.first().click();
  await page.getByText('Paused on breakpoint').first().waitFor({ timeout: 180000 });
}

/** The Memory pane of Run and Debug, expanded. */
async function memoryPane(): Promise<Locator> {
  return expandedPane(/^\s*Memory/, 'Memory');
}

/** A pane of Run and Debug by its title, expanded (Run and Debug shown first if the pane is not there). */
async function expandedPane(title: RegExp, name: string): Promise<Locator> {
  const view = pane(title);
  await eventually(
    async () => {
      if ((await view.count()) === 0) {
        await palette('View: Show Run and Debug');
        return false;
      }
      const header = view.locator('.pane-header').first();
      if ((await header.getAttribute('aria-expanded')) !== 'true') {
        await header.click();
      }
      return (await header.getAttribute('aria-expanded')) === 'true';
    },
    60000,
    `the ${name} pane in Run and Debug, expanded`,
  );
  return view;
}

test('code-server: Memory view — counts at a stop, a delta after a step, the instances of a class, counting only when asked', { timeout: 900_000 }, async () => {
  await pausedInTick();
  log('memory: paused on breakpoint');
  const memory = await memoryPane();
  // Counts at this stop: byte[] with its number of instances.
  const byteRow = memory.locator('.monaco-list-row').filter({ hasText: /^\s*byte\[\]\s*[\d,]+/ });
  await byteRow.first().waitFor({ timeout: 120000 });
  await shot('e2e-memory-counts');
  log(`memory: ${(await byteRow.first().textContent())?.trim()}`);

  // Step until tick() ran again (it keeps one more byte[1024]): byte[] shows its change.
  const changed = /^\s*byte\[\]\s*[\d,]+\s+[+−][\d,]+/;
  await eventually(
    async () => {
      const text = (await byteRow.first().textContent({ timeout: 2000 }).catch(() => '')) ?? '';
      if (changed.test(text) && (await page.getByText('Paused on').first().isVisible())) {
        return true;
      }
      await palette('Debug: Step Over');
      await page.getByText(/Paused on (step|breakpoint)/).first().waitFor({ timeout: 60000 });
      await memory.locator('.monaco-list-row').filter({ hasText: changed }).first().waitFor({ timeout: 15000 }).catch(() => undefined);
      return false;
    },
    240000,
    'byte[] showing a change after a step',
  );
  log(`memory after a step: ${(await byteRow.first().textContent())?.trim()}`);
  await shot('e2e-memory-delta');

  // The class opens to its instances.
  await byteRow.first().click();
  await memory.locator('.monaco-list-row').filter({ hasText: /^\s*\[0\]: byte\[\d+\]/ }).first().waitFor({ timeout: 60000 });
  await shot('e2e-memory-instances');
  log('memory: byte[] instances listed');

  // Counting only when asked (IntelliJ's "Update Loaded Classes on Debugger
  // Stop" off): after a step the table keeps an earlier stop's counts and
  // the view says so; Count Instances Now counts at this stop.
  const header = memory.locator('.pane-header').first();
  const said = async (): Promise<string> => (await header.textContent({ timeout: 2000 }).catch(() => '')) ?? '';
  const counting = (): unknown => (JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as Record<string, unknown>)['ddmbridge.memory.countAtEveryStop'];
  await palette('ddmbridge Memory: Count Only When Asked');
  try {
    // The setting is written before the step: a stop that came first would
    // still be counted (the view was still visible to the adapter).
    await eventually(() => counting() === false, 60000, 'countAtEveryStop false in the user settings');
    await eventually(
      async () => {
        if (/of an earlier stop: Count Instances Now/.test(await said())) {
          return true;
        }
        await palette('Debug: Step Over');
        await header.filter({ hasText: /of an earlier stop/ }).waitFor({ timeout: 15000 }).catch(() => undefined);
        return false;
      },
      180000,
      'the Memory view saying its counts are of an earlier stop, after a step',
    );
    await shot('e2e-memory-when-asked');
    await palette('ddmbridge Memory: Count Instances Now');
    await eventually(
      async () => {
        const t = await said();
        return /[\d,]+ classes/.test(t) && !/earlier|counting/.test(t);
      },
      120000,
      'the Memory view counted at this stop, asked',
    );
    log(`memory, counted when asked: ${(await said()).trim()}`);
  } finally {
    await palette('ddmbridge Memory: Count at Every Stop');
    await eventually(() => counting() !== false, 60000, 'countAtEveryStop back on in the user settings');
  }

  await palette('Debug: Disconnect');
  await page.getByText('Paused on').first().waitFor({ state: 'hidden', timeout: 60000 });
});

// Android's allocation tracker in the Memory view: the VM is the simulated
// ART VM in front of HotSpot, so the records are the simulator's (the view
// says so). Tracking turned on at one stop, the next stop lists the
// allocations since, each with its size and its thread by name; one opens to
// its stack, whose frame opens its source (com/example/simvm/Worker.java in
// the workspace) at its line.
test('code-server: Memory view — Android allocations since the previous stop, named threads, a frame opens its source', { timeout: 900_000 }, async () => {
  await pausedInTick();
  log('allocations: paused on breakpoint');
  const memory = await memoryPane();
  const allocsRow = memory.locator('.monaco-list-row').filter({ hasText: /allocations since the previous stop/i }).first();
  const allocsText = async (): Promise<string> => ((await allocsRow.textContent({ timeout: 2000 }).catch(() => '')) ?? '').trim();
  await allocsRow.waitFor({ timeout: 120000 });
  // The VM is a simulator: the node says so on screen, first thing.
  const simulatedOff = /^Simulated allocations since the previous stop\s*tracker off$/;
  await eventually(async () => simulatedOff.test(await allocsText()), 60000, 'the node "Simulated allocations since the previous stop", tracker off');
  await shot('e2e-allocations-off');

  // The view's button turns the tracker on (its header actions show on hover).
  await eventually(
    async () => {
      if (/stop\s*\d+$/.test(await allocsText())) {
        return true;
      }
      const header = memory.locator('.pane-header').first();
      await header.hover();
      await header.locator('.action-label[aria-label^="Track Allocations"]').first().click({ timeout: 5000 });
      await allocsRow.filter({ hasText: /stop\s*\d+$/ }).waitFor({ timeout: 15000 });
      return true;
    },
    60000,
    'the tracker turned on by the Memory view\'s button',
  );
  log(`allocations: tracker on (${await allocsText()})`);

  // Continue to the next stop (tick's n changes) until the simulator
  // recorded something between two stops: it allocates every 200 ms while
  // the JVM runs, which is ~100 ms from one hit of the breakpoint to the next.
  const counted = /^Simulated allocations since the previous stop\s*[1-9][\d,]*$/;
  const variables = page.locator('.pane').filter({ has: page.locator('.pane-header', { hasText: /^\s*Variables/ }) });
  const nPattern = /^\s*n\s*[=:]\s*(-?\d+)\s*$/;
  const nValue = async (): Promise<number> => {
    const row = variables.locator('.monaco-list-row').filter({ hasText: nPattern }).first();
    if (!(await row.isVisible())) {
      const locals = variables.locator('.monaco-list-row', { hasText: 'Locals' }).first();
      if ((await locals.isVisible()) && (await locals.getAttribute('aria-expanded')) !== 'true') {
        await locals.click();
      }
      return NaN;
    }
    return Number(nPattern.exec((await row.textContent({ timeout: 2000 }).catch(() => '')) ?? '')?.[1]);
  };
  const n0 = await eventually(async () => {
    const v = await nValue();
    return Number.isInteger(v) ? v : undefined;
  }, 30000, 'tick\'s n in the Variables pane');
  let stops = 0;
  await eventually(
    async () => {
      if (counted.test(await allocsText())) {
        return true;
      }
      const before = await nValue();
      await palette('Debug: Continue');
      await eventually(
        async () => {
          const v = await nValue();
          return Number.isInteger(v) && v !== before;
        },
        60000,
        'the breakpoint hit again',
      );
      stops++;
      await allocsRow.filter({ hasText: counted }).waitFor({ timeout: 5000 }).catch(() => undefined);
      return false;
    },
    300000,
    'allocations recorded between two stops',
  );
  log(`allocations after ${stops} continues (n ${n0} → ${await nValue()}): ${await allocsText()}`);

  // Its rows: class, size and the allocating thread by name (one of the JVM's).
  if ((await allocsRow.getAttribute('aria-expanded')) !== 'true') {
    await allocsRow.click();
  }
  const rowPattern = /^\s*(java\.lang\.Object|java\.lang\.Class|(?:byte|char|int|long)\[\])\s*([\d,]+) bytes · (.+?)\s*$/;
  const allocRows = memory.locator('.monaco-list-row').filter({ hasText: / bytes · / });
  await allocRows.first().waitFor({ timeout: 60000 });
  const texts = await allocRows.allTextContents();
  const parsed = texts.map((t) => rowPattern.exec(t));
  assert.ok(parsed.every((m) => m !== null), `allocation rows as "class size bytes · thread": ${JSON.stringify(texts)}`);
  const threadNames = parsed.map((m) => m![3]);
  assert.ok(
    threadNames.every((n) => !/^thread \d+$/.test(n)),
    `every allocation's thread named (THCR through the monitor), not "thread N": ${JSON.stringify(threadNames)}`,
  );
  await shot('e2e-allocations');
  log(`allocations: ${texts.length} rows shown, e.g. ${texts[0].trim()}`);

  // One opens to its stack; its innermost frame opens Worker.java at its line.
  await allocRows.first().click();
  const frameRow = memory.locator('.monaco-list-row').filter({ hasText: /^\s*com\.example\.simvm\.Worker\.work\(Worker\.java:(\d+)\)\s*$/ }).first();
  await frameRow.waitFor({ timeout: 60000 });
  const frameLine = Number(/Worker\.java:(\d+)/.exec((await frameRow.textContent()) ?? '')![1]);
  await frameRow.click();
  await page.locator('.tab', { hasText: 'Worker.java' }).waitFor({ timeout: 60000 });
  await eventually(
    async () => ((await page.locator('.statusbar-item', { hasText: /Ln \d+, Col \d+/ }).first().textContent({ timeout: 2000 }).catch(() => '')) ?? '').includes(`Ln ${frameLine},`),
    30000,
    `the editor's cursor on Worker.java line ${frameLine}`,
  );
  // The editor shows that line of the workspace's Worker.java (Monaco writes spaces as U+00A0).
  const want = fs.readFileSync(workerJava, 'utf8').split('\n')[frameLine - 1].trim();
  const shown = (await page.locator('.monaco-editor .view-line').allTextContents()).map((l) => l.replace(/\u00a0/g, ' ').trim());
  assert.ok(shown.includes(want), `Worker.java line ${frameLine} (${want}) shown in the editor: ${JSON.stringify(shown)}`);
  await shot('e2e-allocations-source');
  log(`allocations: frame Worker.java:${frameLine} opened in the editor`);

  await palette('Debug: Disconnect');
  await page.getByText('Paused on').first().waitFor({ state: 'hidden', timeout: 60000 });
});

// HPROF: a plain HotSpot VM (no DDM) starts on a scanned port; "Dump Heap" on it
// writes a real dump through HotSpot's attach mechanism and opens it in the
// HPROF editor, whose histogram shows the VM's classes.
test('code-server: Dump Heap on a plain JVM opens its histogram', { timeout: 900_000 }, async () => {
  const plain = await startJvm({ suspend: false, args: ['forever'], port: plainPort });
  try {
    const vmRow = page.locator('.quick-input-list .monaco-list-row').filter({ hasText: new RegExp(`fixture\\.Sample|:${plain.port}\\b`) });
    await paletteThenPick('ddmbridge: Dump Heap', vmRow, 270000, 'the plain JVM in the Dump Heap picker');
    // The save dialog (code-server's simple dialog) proposes <app>-<pid>.hprof in the workspace.
    const input = page.locator('.quick-input-widget input');
    await eventually(async () => /\.hprof$/.test(await input.inputValue()), 45000, 'the save dialog with a .hprof name');
    const target = await input.inputValue();
    await page.keyboard.press('Enter');
    log(`dumping to ${target}`);

    const editor = await webviewWith('#histogram tr[data-class]', 120000, 'the histogram of the dump in the HPROF editor');
    const dumps = findFiles(wsDir, /\.hprof$/);
    assert.equal(dumps.length, 1, `one dump in the workspace (${dumps.join(', ')})`);
    assert.ok(fs.statSync(dumps[0]).size > 1 << 20, `a complete HotSpot dump (${fs.statSync(dumps[0]).size} bytes)`);
    assert.match((await editor.locator('#status').textContent()) ?? '', /JAVA PROFILE 1\.0\.2: [\d,]+ objects/);
    const classes = await editor.locator('#histogram tr[data-class]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-class')));
    for (const c of ['byte[]', 'java.lang.String', 'java.lang.Class']) {
      assert.ok(classes.includes(c), `${c} in the histogram (${classes.slice(0, 10).join(', ')}…)`);
    }
    // Sample.tick keeps a byte[1024] per tick: byte[] is among the biggest.
    assert.ok(classes.indexOf('byte[]') < 5, `byte[] near the top (${classes.slice(0, 5).join(', ')})`);
    await editor.locator('#hist-filter').fill('java.lang.String');
    await eventually(async () => (await editor.locator('#histogram tr[data-class]').count()) <= 10, 30000, 'the filtered histogram');
    await shot('e2e-hprof-histogram');

    // The dominator tree of the same dump.
    await editor.locator('#tab-dominators').click();
    await editor.locator('#dominators tr[data-id]').first().waitFor({ timeout: 180000 });
    await shot('e2e-hprof-dominators');
    log('HPROF editor shows the histogram and the dominator tree');

    // The DDM heap map of the plain VM says it has none instead of waiting for one.
    await paletteThenPick('ddmbridge: Show Heap Map', vmRow, 180000, 'the plain JVM in the Show Heap Map picker');
    const noDDM = await webviewWith('#status.no-ddm', 90000, 'the heap map saying the VM has no DDM');
    const note = (await noDDM.locator('#status').textContent()) ?? '';
    assert.match(note, /is a plain JVM without DDM/);
    await shot('e2e-heap-no-ddm');
    log('the DDM heap map says the plain JVM has no DDM');
  } finally {
    plain.kill();
  }
});

// A class-loader leak in a real HotSpot dump: Leak (ddm/hprof/testdata/leak)
// holds a URLClassLoader in a static, which loaded Plugin, whose statics hold
// 100 000 bytes. The dump (jcmd GC.heap_dump) opens in the HPROF editor; the
// histogram's retained column shows what the loader keeps alive; Paths on
// Plugin's row shows the chain from a sticky class through Leak's class, the
// loader and its classes list to Plugin's class and its instance, each step
// with the field or element that holds it.
test('code-server: a class-loader leak — from the histogram to its path to GC roots through the loader', { timeout: 900_000 }, async () => {
  const leakSrc = path.join(repoRoot, 'ddm', 'hprof', 'testdata', 'leak');
  const out = tmpDir();
  const app = path.join(out, 'app');
  const plugin = path.join(out, 'plugin');
  execFileSync('javac', ['-d', app, path.join(leakSrc, 'app', 'Leak.java')], { timeout: 120000 });
  execFileSync('javac', ['-d', plugin, path.join(leakSrc, 'plugin', 'Plugin.java')], { timeout: 120000 });
  const leak = spawn('java', ['-Xmx128m', `-Dplugin.dir=${plugin}`, '-cp', app, 'Leak'], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let said = '';
    leak.stdout!.on('data', (d: Buffer) => (said += d.toString()));
    leak.stderr!.on('data', (d: Buffer) => (said += d.toString()));
    await eventually(() => /READY/.test(said), 120000, 'the Leak program READY');
    const dump = path.join(wsDir, 'leak.hprof');
    execFileSync('jcmd', [String(leak.pid), 'GC.heap_dump', dump], { timeout: 180000 });
    assert.ok(fs.statSync(dump).size > 1 << 20, 'a complete HotSpot dump');
    leak.kill('SIGKILL');
    log(`dumped Leak to ${dump}`);

    // Open it as a user would: quick open, by name (the workbench first when
    // this test runs alone).
    await openWorkbench();
    await quickOpen('leak.hprof');
    const editor = await webviewWith('#histogram tr[data-class="Plugin"]', 180000, 'the histogram of leak.hprof in the HPROF editor');
    assert.match((await editor.locator('#status').textContent()) ?? '', /JAVA PROFILE 1\.0\.2: [\d,]+ objects .*compressed references/);

    // The retained column: the loader keeps Plugin's class, its statics and
    // its own state alive — more than the 100 000-byte array.
    const loaderRetained = editor.locator('#histogram tr[data-class="java.net.URLClassLoader"] td[data-retained]');
    await loaderRetained.waitFor({ timeout: 180000 });
    const kept = Number(await loaderRetained.getAttribute('data-retained'));
    assert.ok(kept > 100_000, `java.net.URLClassLoader retains ${kept} bytes, want more than Plugin's 100 000-byte array`);
    await editor.locator('#hist-filter').fill('Plugin');
    await eventually(async () => (await editor.locator('#histogram tr[data-class]').count()) <= 3, 30000, 'the histogram filtered to Plugin');
    await shot('e2e-hprof-leak-histogram');

    // Follow the leak: Paths on Plugin's row.
    await editor.locator('#histogram tr[data-class="Plugin"] button.paths').click();
    await editor.locator('#paths li.path-node.target').first().waitFor({ timeout: 180000 });
    const chain = await editor.locator('#paths li.path-node').evaluateAll((ls) => ls.map((l) => l.getAttribute('data-class')));
    const want = ['class Leak', 'java.net.URLClassLoader', 'java.util.ArrayList', 'java.lang.Object[]', 'class Plugin', 'Plugin'];
    assert.deepEqual(chain.slice(-want.length), want, `the path to Plugin (${chain.join(' → ')})`);
    assert.match((await editor.locator('#paths li.path-node').first().textContent()) ?? '', /GC root: sticky class/);
    assert.match((await editor.locator('#paths-title').textContent()) ?? '', /1 of 1 object reached/);
    // Each step names the field or element that holds it, read back from the dump: Leak's static,
    // ClassLoader's classes list (a field of URLClassLoader's superclass), its elementData, the element,
    // Plugin's static.
    const fields = await editor.locator('#paths li.path-node').evaluateAll((ls) => ls.map((l) => l.getAttribute('data-field')));
    assert.deepEqual(fields.slice(-5), ['static held', 'classes', 'elementData', '[0]', 'static self'], `the fields on the path (${fields.join(' → ')})`);
    const loaderLine = (await editor.locator('#paths li.path-node[data-class="java.net.URLClassLoader"] > .node-line').first().textContent()) ?? '';
    assert.match(loaderLine, /^static held → java\.net\.URLClassLoader 0x/);
    await shot('e2e-hprof-leak-paths');
    log(`the path to Plugin: ${chain.join(' → ')}`);

    // Who holds the loader: Leak's class (its static), among its incoming references.
    const loaderNode = editor.locator('#paths li.path-node[data-class="java.net.URLClassLoader"]').first();
    await loaderNode.locator(':scope > .node-line button.incoming').click();
    await editor.locator('#objects tr[data-class="class Leak"]').waitFor({ timeout: 120000 });
    assert.match((await editor.locator('#objects-title').textContent()) ?? '', /Objects that refer to java\.net\.URLClassLoader/);
    assert.equal(await editor.locator('#objects tr[data-class="class Leak"]').getAttribute('data-field'), 'static held');
    assert.match((await editor.locator('#objects tr[data-class="class Leak"] td:nth-child(4)').textContent()) ?? '', /^static held/);
    await shot('e2e-hprof-leak-incoming');
  } finally {
    leak.kill('SIGKILL');
  }
});

test('code-server: current Android — the picker lists track-app apps, refuses a frozen one in words, debugs the waiting one', { timeout: 900_000 }, async () => {
  await openWorkbench(); // the test can run alone (TEST_NAME_PATTERN)
  // A device as current as Android is today (track-app with app_info, a
  // waiting, a frozen and a release app), connected to the backend's adb server.
  device = spawn(backendBin, ['simdevice', '--profile', 'current', '--listen', '127.0.0.1:0', '--procs', '1', '--model', 'Current', '--log-interval', '500ms'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let printed = '';
  device.stdout!.on('data', (d: Buffer) => (printed += d.toString()));
  const addr = await eventually(() => /listening on (\S+)/.exec(printed)?.[1], 180000, `simdevice's address (printed: ${printed})`);
  const adb = (...args: string[]): string =>
    execFileSync('adb', ['-P', String(adbPort), ...args], { env: { ...process.env, HOME: adbHome }, timeout: 30_000 }).toString();
  adb('connect', addr);
  await eventually(() => adb('devices').includes(`${addr}\tdevice`), 180000, 'the simulated device online');
  log(`device ${addr} online`);

  // Start the "Pick a VM" configuration: VS Code asks ${command:ddmbridge.pickVM}.
  await page.keyboard.press('Escape');
  await palette('Debug: Select and Start Debugging');
  const configRow = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Pick a VM' });
  await configRow.first().waitFor({ timeout: 60000 });
  await configRow.first().click();
  const row = (text: string) => page.locator('.quick-input-list .monaco-list-row', { hasText: text });
  // Every app of the device is listed from track-app, before any JDWP connection.
  await row('com.example.waiting').first().waitFor({ timeout: 180000 });
  await row('com.example.cached').first().waitFor({ timeout: 90000 });
  await shot('e2e-android-picker');

  // The frozen app is refused in words, with what to do; the picker stays open.
  await row('com.example.cached').first().click();
  await page.getByText(/frozen by the cached-apps freezer/).first().waitFor({ timeout: 60000 });
  log('frozen app refused in words');

  // The waiting app: a session starts on it, and the app stops waiting.
  await row('com.example.waiting').first().click();
  await palette('View: Show Run and Debug'); // its Call Stack, whichever view an earlier test left open
  // The app's threads (ART's "Signal Catcher" among them) in the Call Stack.
  // (Or the session's own row, when another session is still listed.)
  await pane('Call Stack').locator('.monaco-list-row', { hasText: /Signal Catcher|Pick a VM/ }).first().waitFor({ timeout: 180000 });
  await shot('e2e-android-session');
  log('debug session on the waiting app');

  // The app's log in the Debug Console (its pid's logcat lines), warnings
  // and errors as stderr.
  await palette('Debug Console: Focus on Debug Console View');
  const repl = page.locator('.repl .monaco-list-row');
  await repl.filter({ hasText: /W SimApp +: com\.example\.waiting: tick \d+ \(a warning\)/ }).first().waitFor({ timeout: 120000 });
  await repl.filter({ hasText: /I SimApp +: com\.example\.waiting: tick \d+ \(info\)/ }).first().waitFor({ timeout: 60000 });
  const consoleText = (await page.locator('.repl').textContent()) ?? '';
  assert.ok(!/com\.example\.sim1: tick/.test(consoleText), "only the debugged app's lines (its pid), not another app's");
  await shot('e2e-android-logcat');
  log('logcat of the app in the Debug Console');

  // The Heap view: current Android sends no HPIF/HPSG, so the heap comes
  // from an am dumpheap dump, and the view says so with the dump's time.
  await palette('ddmbridge: Show Heap Map');
  // The Heap panel is the one webview with #heap-source (earlier tests leave
  // other webviews open: the .hprof editor's, the Threads view's).
  const heapView = await webviewWith('#heap-source', 180000, 'the Heap view');
  await heapView.locator('#totals tr[data-kind]').first().waitFor({ timeout: 180000 });
  await eventually(
    async () => /^From a heap dump taken at \d\d:\d\d:\d\d/.test((await heapView.locator('#heap-source').textContent()) ?? ''),
    90000,
    'the heap view saying its heap comes from a dump, with the time',
  );
  assert.match((await heapView.locator('.heap-info h3').textContent()) ?? '', /from a heap dump/);
  assert.ok(!/Waiting for a heap map/.test((await heapView.locator('#status').textContent()) ?? ''), 'not waiting for a heap map');
  await shot('e2e-android-heap-dump');
  log('heap view of the current app from a dump');
  await page.keyboard.press('Escape');
  await palette('View: Show ddmbridge');
  await eventually(
    async () => {
      const r = (await page.locator('.monaco-list-row', { hasText: 'com.example.waiting' }).first().textContent()) ?? '';
      return !/waiting/.test(r.replace('com.example.waiting', ''));
    },
    60000,
    'the explorer no longer showing the app as waiting for a debugger',
  );
  await palette('Debug: Disconnect');
  log('android scenario done');
});

/** The extension's output channel ("ddmbridge"), as logged so far. */
/** Opens a workspace file as a user would: quick open, by name. */
async function quickOpen(name: string): Promise<void> {
  await eventually(
    async () => {
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+P');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible', timeout: 15000 });
      await input.fill(name);
      const row = page.locator('.quick-input-list .monaco-list-row').filter({ hasText: name });
      try {
        await row.first().waitFor({ state: 'visible', timeout: 10000 });
      } catch {
        return false;
      }
      await row.first().click();
      return true;
    },
    120000,
    `${name} in quick open`,
  );
}

// A big dump in the HPROF editor (issue 41): a real HotSpot dump of
// fixture.BigHeap, 4,000,000 list nodes (about 12 M objects, 530 MB). The
// histogram shows first, from the streamed pass, while the retained sizes
// are computed with a progress bar and Cancel; Cancel while the dominator
// tree is computed stops it (hprof/cancel), and the button to start again
// computes it, the histogram's retained column and the Dominators tab then
// filled. The tree takes about a second here, less than a click may take
// to reach the backend through a loaded extension host: the backend runs
// with DDMBRIDGE_HPROF_TREE_GATE naming a file (hprofTreeGate), and while
// the test holds that file each tree waits at its first look at its
// context, where Cancel stops it as it would anywhere in the tree. The file
// is removed before the tree is started again.
test('code-server: a big dump — the streamed histogram first, Cancel stops the dominator tree, started again it shows', { timeout: 900_000 }, async () => {
  const classes = await compileStates(bigHeapJava, path.join(tmpDir(), 'bigheap-classes'));
  const nodes = 4_000_000;
  const big = spawn('java', ['-Xmx1g', '-XX:+UseParallelGC', '-cp', classes, 'fixture.BigHeap', String(nodes)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const dump = path.join(wsDir, 'big.hprof');
  try {
    let said = '';
    big.stdout!.on('data', (d: Buffer) => (said += d.toString()));
    big.stderr!.on('data', (d: Buffer) => (said += d.toString()));
    await eventually(() => /READY/.test(said), 180000, 'fixture.BigHeap READY');
    execFileSync('jcmd', [String(big.pid), 'GC.heap_dump', dump], { timeout: 300000 });
    big.kill('SIGKILL');
    const size = fs.statSync(dump).size;
    assert.ok(size > nodes * 100, `a HotSpot dump of ${nodes} nodes (${size} bytes)`);
    log(`dumped fixture.BigHeap: ${size} bytes`);

    fs.writeFileSync(hprofTreeGate, '');
    try {
      await openWorkbench();
      await palette('View: Close All Editors'); // another dump's editor would match the selectors below
      await quickOpen('big.hprof');
      const editor = await webviewWith('#hprof-title', 120000, 'the HPROF editor of big.hprof');
      await eventually(async () => (await editor.locator('#hprof-title').textContent()) === 'Heap dump big.hprof', 180000, 'the histogram of big.hprof');
      // The parse done, the tree waits at its gate: the editor says it
      // computes it, with the progress bar and Cancel, under the streamed
      // histogram and no retained size yet.
      const label = editor.locator('#hprof-progress-label');
      await eventually(async () => (await label.textContent()) === 'Computing the dominator tree…', 300000, 'the dominator tree computed');
      await eventually(() => /the dominator tree waits while its gate exists/.test(channelLog()), 60000, "the backend's log: the tree waits at its gate");
      assert.equal(await editor.locator('#hprof-progress').isVisible(), true, 'the progress bar shows with Cancel');
      const rows = await editor.locator('#histogram tr[data-class]').count();
      const retained = await editor.locator('#histogram td[data-retained]').count();
      assert.ok(rows > 0 && retained === 0, `the histogram shows before the retained sizes (${rows} rows, ${retained} retained sizes)`);
      await editor.locator('#hprof-cancel').click();
      // Stopped: the tree's request failed with "context canceled".
      await editor.locator('#hprof-restart').waitFor({ timeout: 300000 });
      assert.equal(await label.textContent(), 'Stopped: the retained sizes were not computed.');
      assert.equal(await editor.locator('#hprof-cancel').isVisible(), false);
      assert.equal(await editor.locator('#status').textContent(), 'Retained sizes of big.hprof: stopped.');
      assert.equal(await editor.locator('#histogram tr[data-class="fixture.BigHeap$Node"]').count(), 1, 'the histogram stays, with BigHeap$Node');
      await shot('e2e-hprof-big-stopped');
      log('Cancel stopped the dominator tree of big.hprof');

      // Started again, the gate gone: the tree runs to its end; the retained column, then the Dominators tab.
      fs.rmSync(hprofTreeGate);
      await editor.locator('#hprof-restart').click();
      const nodeRetained = editor.locator('#histogram tr[data-class="fixture.BigHeap$Node"] td[data-retained]');
      await nodeRetained.waitFor({ timeout: 300000 });
      assert.ok(Number(await nodeRetained.getAttribute('data-retained')) >= nodes * 24, 'the nodes retain at least their own bytes');
      assert.equal(await editor.locator('#hprof-work').isVisible(), false, 'no work shown once the retained sizes are in');
      await editor.locator('#tab-dominators').click();
      const top = editor.locator('#dominators tr[data-id]').first();
      await top.waitFor({ timeout: 300000 });
      assert.equal(await top.getAttribute('data-class'), 'class fixture.BigHeap', "BigHeap's class (its statics hold the list and the map) dominates the most");
      const kept = Number(await top.locator('td[data-bytes]').getAttribute('data-bytes'));
      assert.ok(kept >= nodes * 24, `class fixture.BigHeap retains ${kept} bytes`);
      await shot('e2e-hprof-big-dominators');
      log(`started again: the dominator tree of big.hprof, class fixture.BigHeap retains ${kept} bytes`);
    } finally {
      fs.rmSync(hprofTreeGate, { force: true });
      await palette('View: Close All Editors').catch(() => undefined);
    }
  } finally {
    big.kill('SIGKILL');
    fs.rmSync(dump, { force: true });
  }
});

function channelLog(): string {
  return findFiles(path.join(userDataDir, 'logs'), /ddmbridge\.log$/)
    .map((f) => fs.readFileSync(f, 'utf8'))
    .join('\n');
}

/** Opens the workbench unless an earlier test did (each test can run alone: TEST_NAME_PATTERN). */
async function openWorkbench(): Promise<void> {
  if (page.url() !== url) {
    await page.goto(url, { timeout: 180000 }); // a loaded machine serves the workbench slowly
  }
  await page.locator('.monaco-workbench').waitFor({ timeout: 180000 });
}

/** The Threads panel's rows: [name, state shown, data-state]. */
async function threadRows(view: FrameLocator): Promise<[string, string, string][]> {
  return view.locator('#threads tr[data-thread]').evaluateAll((trs) =>
    trs.map((tr) => {
      const name = (tr.querySelector('td.name')?.firstChild?.textContent ?? '').trim();
      const st = tr.querySelector('.state');
      return [name, (st?.textContent ?? '').trim(), st?.getAttribute('data-state') ?? ''] as [string, string, string];
    }),
  );
}

// F5 on a plain JVM: the Threads panel fills within seconds with the states
// the monitor reports (sleeper timed-wait, waiter wait, spinner running, by
// name), the JVM is in the panel's VM picker, threads show suspended while
// stopped at a breakpoint, and the debug toolbar's Hot Code Replace button
// replaces a rebuilt class; a refused change shows one toast.
test('code-server: F5 on a JVM — Threads panel states, suspended at a breakpoint, HCR toolbar button', { timeout: 900_000 }, async () => {
  await openWorkbench();
  // Hot code replace by the button only ("manual"): the button is what is tested.
  const settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
  // The debug console stays closed (it would cover the Threads panel at session start).
  fs.writeFileSync(
    settingsFile,
    JSON.stringify({ ...settings, 'ddmbridge.hotCodeReplace': 'manual', 'debug.internalConsoleOptions': 'neverOpen' }, null, 2),
  );
  await page.keyboard.press('Escape');
  await palette('Debug: Select and Start Debugging');
  const configRow = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Launch States' });
  await configRow.first().waitFor({ timeout: 60000 });
  await configRow.first().click();
  const started = Date.now();
  // The session runs: its toolbar is up.
  await page.locator('.debug-toolbar').first().waitFor({ state: 'visible', timeout: 120000 });

  await palette('ddmbridge: Show Threads');
  const view = await webviewWith('#threads', 120000, 'the Threads panel');
  await view
    .locator('#threads tr[data-thread]')
    .first()
    .waitFor({ timeout: 120000 })
    .catch(async (e: Error) => {
      const status = (await view.locator('#status').textContent({ timeout: 2000 }).catch(() => '')) ?? '';
      const title = (await view.locator('#vm-title').textContent({ timeout: 2000 }).catch(() => '')) ?? '';
      throw new Error(`no thread rows in the Threads panel (${e.message}); panel: "${status}"; title: "${title}"\n${channelLog().slice(-4000)}`);
    });
  const want: Record<string, string> = { sleeper: 'timed-wait', waiter: 'wait', spinner: 'running' };
  let shown: [string, string, string][] = [];
  await eventually(
    async () => {
      shown = await threadRows(view);
      return Object.entries(want).every(([name, st]) => shown.some(([n, s]) => n === name && s === st));
    },
    120000,
    'sleeper timed-wait, waiter wait, spinner running in the Threads panel',
  ).catch((e: Error) => {
    throw new Error(`${e.message}; rows: ${JSON.stringify(shown)}`);
  });
  log(`threads panel filled ${((Date.now() - started) / 1000).toFixed(1)}s after F5: ${JSON.stringify(shown.filter(([n]) => n in want))}`);
  assert.match((await view.locator('#vm-title').textContent()) ?? '', /fixture\.States/);
  // The spinner's activity lamp lights from its CPU time; the sleeper's stays dark.
  await eventually(
    async () => {
      const lit = await view.locator('#threads tr[data-thread]').evaluateAll((trs) =>
        Object.fromEntries(trs.map((tr) => [(tr.querySelector('td.name')?.firstChild?.textContent ?? '').trim(), tr.querySelectorAll('.lamp.on').length])),
      );
      return lit.spinner > 0 && lit.sleeper === 0 && lit.waiter === 0;
    },
    60000,
    'the spinner lit by its CPU use, the sleeper and the waiter dark',
  );
  await shot('e2e-f5-threads');

  // The launched JVM is in the panel's own VM picker.
  await view.locator('#pick').click();
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'fixture.States' }).first().waitFor({ timeout: 60000 });
  await page.keyboard.press('Escape');
  log('the F5-launched JVM is in the VM picker');

  // A breakpoint on the beat: stopped there, the panel marks the threads suspended.
  await eventually(
    async () => {
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+P');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible', timeout: 15000 });
      await input.fill('States.java');
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'States.java' });
      await row.first().waitFor({ state: 'visible', timeout: 15000 });
      await row.first().click();
      await page.locator('.tab', { hasText: 'States.java' }).waitFor({ timeout: 15000 });
      return true;
    },
    120000,
    'States.java open',
  );
  await page.locator('.monaco-editor .view-lines').first().click();
  await page.keyboard.press('Control+G');
  await page.locator('.quick-input-widget input').fill(`:${lineOf('beat', statesJava)}`);
  await page.keyboard.press('Enter');
  await page.keyboard.press('F9');
  await page.getByText('Paused on breakpoint').first().waitFor({ timeout: 120000 });
  // The first stop as VS Code shows it, nothing clicked: the stopped thread
  // first in Call Stack, expanded, its top frame selected; Locals expanded
  // with n (run alone, the break opens Run and Debug: "openOnDebugBreak").
  await firstStopShown(/^main /, 'States.beat', /^\s*n\s*[=:]\s*\d+/).catch(async (e: Error) => {
    await shot('e2e-f5-first-stop-collapsed');
    throw e;
  });
  await shot('e2e-f5-first-stop');
  log('first stop: main expanded, States.beat selected, Locals open');
  await palette('ddmbridge: Show Threads');
  await eventually(
    async () => {
      shown = await threadRows(view);
      return ['sleeper', 'waiter', 'spinner', 'main'].every((name) => shown.some(([n, , cls]) => n === name && cls === 'suspended'));
    },
    120000,
    'sleeper, waiter, spinner and main marked suspended while stopped at the breakpoint',
  ).catch((e: Error) => {
    throw new Error(`${e.message}; rows: ${JSON.stringify(shown)}`);
  });
  assert.ok(shown.some(([n, s]) => n === 'spinner' && /running \(suspended\)/.test(s)), `the spinner shown "running (suspended)": ${JSON.stringify(shown)}`);
  await shot('e2e-f5-suspended');
  log('threads marked suspended at the breakpoint');

  // The Hot Code Replace button on the debug toolbar.
  const hcrButton = page.locator('.debug-toolbar .codicon-flame');
  await hcrButton.first().waitFor({ state: 'visible', timeout: 60000 });
  // A rebuilt States.class (a changed method body) is replaced by the button.
  const edited = path.join(tmpDir(), 'edited-states', 'fixture');
  fs.mkdirSync(edited, { recursive: true });
  const source = fs.readFileSync(statesJava, 'utf8');
  fs.writeFileSync(path.join(edited, 'States.java'), source.replace('beats = n; // TAG:beat', 'beats = n + 1; // TAG:beat'));
  await compileStates(path.join(edited, 'States.java'), statesClasses);
  // javac rewrote States.class and States$Pulse.class; only States changed,
  // so only States is sent, counted and named. The progress is in the status
  // bar (no toast beside the result's); it ends with the replace.
  const toastTexts = async (): Promise<string[]> => page.locator('.notification-toast .notification-list-item-message').allInnerTexts();
  const progressShown: string[] = [];
  const result = await eventually(
    async () => {
      await hcrButton.first().click();
      const until = Date.now() + 8000;
      while (Date.now() < until) {
        const texts = await toastTexts();
        progressShown.push(...texts.filter((t) => /class file\(s\)…/.test(t)));
        const done = texts.find((t) => /^Hot code replace: replaced/.test(t));
        if (done) {
          return done;
        }
        if (texts.some((t) => /no class file changed/.test(t))) {
          return undefined; // clicked before the watcher saw the rebuild
        }
        await page.waitForTimeout(100);
      }
      return undefined;
    },
    120000,
    'the HCR button replacing fixture.States',
  );
  assert.equal(result, 'Hot code replace: replaced 1 class (fixture.States)', 'only the class whose bytes changed is replaced and named');
  assert.deepEqual(progressShown, [], 'no progress toast beside the result');
  await eventually(
    async () => ((await page.locator('.statusbar-item', { hasText: /Hot code replace/ }).count()) === 0 ? true : undefined),
    15000,
    'the status bar progress of the replace gone once it ended',
  );
  await shot('e2e-f5-hcr');
  log('HCR toolbar button replaced the class');

  // A change the VM refuses (a new method): one toast says why, not two.
  fs.writeFileSync(
    path.join(edited, 'States.java'),
    source.replace('static int beat(int n) {', 'static int added() {\n        return 1;\n    }\n\n    static int beat(int n) {'),
  );
  await compileStates(path.join(edited, 'States.java'), statesClasses);
  const refused = page.locator('.notification-toast', { hasText: /refused/ });
  await eventually(
    async () => {
      if ((await refused.count()) > 0) {
        return true;
      }
      await hcrButton.first().click();
      return undefined;
    },
    120000,
    'the refusal of a new method',
  );
  // Both toasts, when there were two, came together; look for a while longer.
  const until = Date.now() + 5000;
  while (Date.now() < until) {
    assert.equal(await refused.count(), 1, `one toast for the refused change: ${await refused.allTextContents()}`);
    await page.waitForTimeout(250);
  }
  assert.match((await refused.first().innerText()).trim(), /^Hot code replace refused: adding a method is not supported by this VM \(ADD_METHOD_NOT_IMPLEMENTED\); classes: fixture\.States/);
  assert.ok(!(await toastTexts()).some((t) => /class file\(s\)…/.test(t)), 'no progress toast left after the refusal');
  await eventually(
    async () => ((await page.locator('.statusbar-item', { hasText: /Hot code replace/ }).count()) === 0 ? true : undefined),
    15000,
    'the status bar progress gone after the refusal',
  );
  await shot('e2e-f5-hcr-refused');
  log('refused change: one toast');

  await palette('Debug: Stop');
  await page.getByText('Paused on breakpoint').first().waitFor({ state: 'hidden', timeout: 60000 });
  fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
  log('F5 scenario done');
});

// Issue 35 as VS Code drives it: four pool workers whose Locals hold a
// Customer with a 3 s toString. At the stop the Variables view shows the
// other values at once (the customer comes later, by itself); continue, a
// step and continue again while toStrings may still run; then Remove All
// Breakpoints and continue: the program ends, which it does only when
// every worker has run all its rounds (no worker is left suspended).
test('code-server: a slow toString — Variables at once but that value; continue, step, remove breakpoints, continue: every worker runs on', { timeout: 900_000 }, async () => {
  await openWorkbench();
  const file = path.join(wsDir, 'src', 'fixture', 'SlowPool.java');
  await eventually(
    async () => {
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+P');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible', timeout: 15000 });
      await input.fill('SlowPool.java');
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'SlowPool.java' });
      await row.first().waitFor({ state: 'visible', timeout: 15000 });
      await row.first().click();
      await page.locator('.tab', { hasText: 'SlowPool.java' }).waitFor({ timeout: 15000 });
      return true;
    },
    120000,
    'SlowPool.java open',
  );
  await page.locator('.monaco-editor .view-lines').first().click();
  await page.keyboard.press('Control+G');
  await page.locator('.quick-input-widget input').fill(`:${lineOf('slowhit', file)}`);
  await page.keyboard.press('Enter');
  await page.keyboard.press('F9');
  await page.locator('.monaco-editor .codicon-debug-breakpoint').first().waitFor({ timeout: 30000 });
  await palette('Debug: Select and Start Debugging');
  const configRow = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Launch SlowPool' });
  await configRow.first().waitFor({ timeout: 60000 });
  await configRow.first().click();
  await page.getByText('Paused on breakpoint').first().waitFor({ timeout: 180000 });
  const paused = Date.now();
  const rowText = async (name: string): Promise<string> => {
    const texts = await pane('Variables').locator('.monaco-list-row').allTextContents();
    return texts.find((t) => new RegExp(`^\\s*${name}\\s*[=:]`).test(t)) ?? '';
  };
  // The stopped worker's Locals, opened as a user does when they are not
  // shown yet: its thread, its top frame, Locals.
  const openLocals = async (): Promise<boolean> => {
    if ((await rowText('r')) !== '') {
      return true;
    }
    const thread = pane('Call Stack').locator('.monaco-list-row', { hasText: /Paused on (breakpoint|step)/i }).first();
    if ((await thread.count()) > 0 && (await thread.getAttribute('aria-expanded')) === 'false') {
      await thread.click();
      await page.keyboard.press('ArrowRight');
    }
    const frame = pane('Call Stack').locator('.monaco-list-row', { hasText: 'lambda$main$0' }).first();
    if (await frame.isVisible()) {
      await frame.click();
    }
    const locals = pane('Variables').locator('.monaco-list-row', { hasText: 'Locals' }).first();
    if ((await locals.count()) > 0 && (await locals.getAttribute('aria-expanded')) !== 'true') {
      await locals.click();
    }
    return false;
  };
  // The ordinary values (the round, its label, the worker) are shown while
  // the customer's toString still runs: not "Customer c…" yet.
  let stop = '';
  let opened = paused;
  await eventually(
    async () => {
      if (!(await openLocals())) {
        opened = Date.now();
        return undefined;
      }
      const [r, label, worker, customer] = await Promise.all([rowText('r'), rowText('label'), rowText('worker'), rowText('customer')]);
      if (/\d/.test(r) && /round \d+/.test(label) && /\d/.test(worker) && customer !== '') {
        stop = `${worker} ${r}`;
        return { r, label, worker, customer };
      }
      return undefined;
    },
    60000,
    'r, label and worker in the Variables view',
  ).then((v) => {
    log(`Variables shown ${Date.now() - opened} ms after Locals opened (${Date.now() - paused} ms after the pause): ${JSON.stringify(v)}`);
    assert.doesNotMatch(v.customer, /Customer c\d/, `the ordinary values waited for the slow toString: ${JSON.stringify(v)}`);
  });
  await shot('e2e-slow-tostring-variables');
  // The customer comes by itself (its toString's text, or that it did not return in its budget).
  await eventually(async () => (/Customer c\d|did not return/.test(await rowText('customer')) ? true : undefined), 60000, 'the customer shown when its toString is done');

  // Continue: another stop (another worker or round).
  await page.keyboard.press('F5');
  await eventually(
    async () => {
      if (!(await openLocals())) {
        return undefined;
      }
      const now = `${await rowText('worker')} ${await rowText('r')}`;
      return /\d.*\d/.test(now) && now !== stop ? now : undefined;
    },
    120000,
    'a new stop after continue',
  );
  // A step, at once (the customer's toString may still run).
  await page.keyboard.press('F10');
  // Remove All Breakpoints, then continue (again at each stop still shown:
  // the step's, a hit decided before the removal): the program runs to its end.
  // The Breakpoints view's own "Remove All Breakpoints" action.
  await eventually(
    async () => {
      await pane('Breakpoints').locator('.pane-header').first().hover();
      await pane('Breakpoints')
        .locator('.pane-header [aria-label="Remove All Breakpoints"], .pane-header .codicon-breakpoints-remove-all')
        .first()
        .click({ timeout: 5000 });
      return true;
    },
    60000,
    'Remove All Breakpoints in the Breakpoints view',
  );
  await eventually(async () => ((await page.locator('.monaco-editor .codicon-debug-breakpoint').count()) === 0 ? true : undefined), 30000, 'no breakpoint left');
  let continues = 0;
  await eventually(
    async () => {
      if ((await page.locator('.debug-toolbar').first().isVisible()) === false) {
        return true;
      }
      if ((await page.getByText(/Paused on/).count()) > 0) {
        await page.keyboard.press('F5');
        continues++;
      }
      return undefined;
    },
    180000,
    'the program ended after Remove All Breakpoints and continue',
  ).catch(async (e: Error) => {
    await shot('e2e-slow-tostring-stuck');
    throw new Error(`${e.message} (a worker left suspended?)\n${channelLog().slice(-4000)}`);
  });
  log(`slow toString: the program ended after ${continues} continue(s) once the breakpoints were removed`);
  log('slow toString scenario: every worker ran on, the program ended');
});

/**
 * Waits until the stop shows as VS Code should show it with nothing
 * clicked: the stopped thread the first row of Call Stack, expanded, its top
 * frame selected; Locals expanded in Variables with a row matching local.
 */
async function firstStopShown(thread: RegExp, frame: string, local: RegExp): Promise<void> {
  const stack = page.locator('.pane').filter({ has: page.locator('.pane-header', { hasText: /^\s*Call Stack/ }) });
  const vars = page.locator('.pane').filter({ has: page.locator('.pane-header', { hasText: /^\s*Variables/ }) });
  let seen = '';
  await eventually(
    async () => {
      const attr = async (l: Locator, a: string): Promise<string> => (await l.getAttribute(a, { timeout: 2000 }).catch(() => null)) ?? '';
      const first = stack.locator('.monaco-list-row').first();
      const frameRow = stack.locator('.monaco-list-row', { hasText: frame }).first();
      const locals = vars.locator('.monaco-list-row', { hasText: 'Locals' }).first();
      const state = {
        first: ((await first.innerText({ timeout: 2000 }).catch(() => '')) ?? '').replace(/\s+/g, ' '),
        expanded: await attr(first, 'aria-expanded'),
        frameSelected: /\bselected\b/.test(await attr(frameRow, 'class')),
        locals: await attr(locals, 'aria-expanded'),
        local: (await vars.locator('.monaco-list-row').filter({ hasText: local }).count()) > 0,
      };
      seen = JSON.stringify(state);
      return thread.test(state.first) && state.expanded === 'true' && state.frameSelected && state.locals === 'true' && state.local;
    },
    60000,
    `the stopped thread ${thread} first, expanded, ${frame} selected, Locals open`,
  ).catch((e: Error) => {
    throw new Error(`${e.message}; shown: ${seen}`);
  });
}

/** Temurin 25 (or the JDK 21+ DDMBRIDGE_JDK21 names): the virtual-thread scenarios' JDK. */
function jdk21(): string {
  const home = process.env.DDMBRIDGE_JDK21 || '/usr/lib/jvm/temurin-25-jdk-amd64';
  assert.ok(fs.existsSync(path.join(home, 'bin', 'javac')), `a JDK 21+ with javac at ${home} (set DDMBRIDGE_JDK21)`);
  return home;
}

let vdemoClasses: Promise<string> | undefined;

/** fixture.VDemo compiled by the JDK 21+ (its virtual threads need JDK 21's API), copied into the workspace. */
function compileVDemo(): Promise<string> {
  vdemoClasses ??= (async () => {
    const out = path.join(tmpDir(), 'vdemo-classes');
    fs.mkdirSync(out, { recursive: true });
    execFileSync(path.join(jdk21(), 'bin', 'javac'), ['-g', '--release', '21', '-d', out, vdemoJava], { timeout: 180_000 });
    fs.copyFileSync(vdemoJava, path.join(wsDir, 'src', 'fixture', 'VDemo.java'));
    return out;
  })();
  return vdemoClasses;
}

/** Adds (or replaces) a configuration in the workspace's launch.json. */
function addLaunchConfig(cfg: Record<string, unknown>): void {
  const launchJson = path.join(wsDir, '.vscode', 'launch.json');
  const all = JSON.parse(fs.readFileSync(launchJson, 'utf8')) as { configurations: Record<string, unknown>[] };
  all.configurations = all.configurations.filter((c) => c.name !== cfg.name);
  all.configurations.push(cfg);
  fs.writeFileSync(launchJson, JSON.stringify(all, null, 2));
}

/** Starts the configuration named name, retrying until VS Code has read launch.json again. */
async function startConfig(name: string): Promise<void> {
  await eventually(
    async () => {
      await page.keyboard.press('Escape');
      await palette('Debug: Select and Start Debugging');
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: name });
      try {
        await row.first().waitFor({ timeout: 10000 });
      } catch {
        return false; // launch.json not read again yet
      }
      await row.first().click();
      return true;
    },
    120000,
    `the configuration "${name}" in the picker`,
  );
}

/** Opens a workspace file by name with quick open. */
async function openFile(name: string): Promise<void> {
  await eventually(
    async () => {
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+P');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible', timeout: 15000 });
      await input.fill(name);
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: name });
      await row.first().waitFor({ state: 'visible', timeout: 15000 });
      await row.first().click();
      await page.locator('.tab', { hasText: name }).waitFor({ timeout: 15000 });
      return true;
    },
    120000,
    `${name} open`,
  );
}

/** A pane of the Run and Debug view by its title. */
function pane(title: string | RegExp): Locator {
  return page.locator('.pane').filter({ has: page.locator('.pane-header', { hasText: title }) });
}

// Issue 38's JDK picker: a launch configuration with "javaHome":
// "${command:pickJavaHome}" asks which installed JDK runs the program (the
// backend's jdks/list: /usr/lib/jvm here); picking Temurin 25 runs the
// program on JDK 25, as its own java.version line in the Debug Console says.
test('code-server: the JDK picker — javaHome ${command:pickJavaHome} lists the installed JDKs, the picked Temurin 25 runs the program', { timeout: 900_000 }, async () => {
  await openWorkbench();
  const home = jdk21();
  const classes = await compileVDemo();
  addLaunchConfig({
    type: 'ddmbridge',
    request: 'launch',
    name: 'Launch on a picked JDK',
    mainClass: 'fixture.VDemo',
    args: ['20', '10'],
    classPaths: [classes],
    sourcePaths: ['${workspaceFolder}/src'],
    javaHome: '${command:pickJavaHome}',
  });
  await startConfig('Launch on a picked JDK');
  const rows = page.locator('.quick-input-list .monaco-list-row');
  const jdkRow = rows.filter({ hasText: home });
  await jdkRow.first().waitFor({ timeout: 120000 });
  const title = (await page.locator('.quick-input-widget .quick-input-title').textContent()) ?? '';
  const listed = await rows.allInnerTexts();
  log(`JDK picker "${title}": ${JSON.stringify(listed.map((t) => t.replace(/\s+/g, ' ')))}`);
  assert.match(title, /Run the program on which JDK\?/);
  assert.match((await jdkRow.first().innerText()).replace(/\s+/g, ' '), /Java 25\s*25\.0/, 'the Temurin row says Java 25 and its full version');
  assert.ok(listed.some((t) => /Java 17/.test(t)), `the JDK 17 of /usr/lib/jvm listed too: ${JSON.stringify(listed)}`);
  // Newest first: the JDK 25 above the JDK 17.
  assert.ok(/Java 2[1-9]/.test(listed[0]), `the newest JDK first: ${JSON.stringify(listed)}`);
  await shot('e2e-jdk-picker');
  await jdkRow.first().click();

  // The program says which Java runs it, in the Debug Console.
  await palette('Debug Console: Focus on Debug Console View');
  const said = page.locator('.repl .monaco-list-row').filter({ hasText: /java\.version=\S+ READY 31/ });
  await said.first().waitFor({ timeout: 180000 }).catch(async (e: Error) => {
    await shot('e2e-jdk-picker-no-output');
    throw new Error(`${e.message}\nconsole: ${(await page.locator('.repl').textContent().catch(() => '')) ?? ''}\n${channelLog().slice(-3000)}`);
  });
  const line = (await said.first().innerText()).trim();
  const want = /JAVA_VERSION="([^"]+)"/.exec(fs.readFileSync(path.join(home, 'release'), 'utf8'))?.[1] ?? '25';
  assert.match(line, new RegExp(`java\\.version=${want.replace(/\./g, '\\.')}\\b`), `the program ran on the picked JDK (${want}): ${line}`);
  await shot('e2e-jdk-picker-launched');
  log(`picked ${home}: the program printed "${line}"`);
  await palette('Debug: Stop');
  await page.locator('.debug-toolbar').first().waitFor({ state: 'hidden', timeout: 60000 });
});

// Issue 38's Virtual Threads views on Temurin 25: VDemo runs 1,000
// virtual threads waiting on a latch, 500 sleeping and a "ticker"; its
// agent lists them (includevirtualthreads=y). Stopped at a breakpoint in
// the ticker, the Call Stack shows it as a virtual thread, expanded; the
// Virtual Threads view lists the 1,501 grouped by stack with their counts,
// a group opens to its frames. Then, running, the Threads panel's Virtual
// Threads button shows the VM's JSON thread dump grouped the same way.
test('code-server: Virtual Threads — JDK 25, stopped in a virtual thread: the view groups 1,501 virtual threads by stack; the Threads panel groups the thread dump', { timeout: 900_000 }, async () => {
  await openWorkbench();
  const home = jdk21();
  const classes = await compileVDemo();
  const port = await freePort();
  const vm = spawn(
    path.join(home, 'bin', 'java'),
    [`-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:${port},includevirtualthreads=y`, '-cp', classes, 'fixture.VDemo', '1000', '500'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  try {
    let out = '';
    vm.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    vm.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    await eventually(() => /READY 1501/.test(out), 180000, `VDemo READY (printed: ${out})`);
    addLaunchConfig({ type: 'ddmbridge', request: 'attach', name: 'Attach to VDemo', hostName: '127.0.0.1', port, sourcePaths: ['${workspaceFolder}/src'] });

    await openFile('VDemo.java');
    await page.locator('.monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+G');
    await page.locator('.quick-input-widget input').fill(`:${lineOf('vtick', vdemoJava)}`);
    await page.keyboard.press('Enter');
    await page.keyboard.press('F9');
    await page.locator('.monaco-editor .codicon-debug-breakpoint').first().waitFor({ timeout: 30000 });
    await startConfig('Attach to VDemo');
    await page.getByText('Paused on breakpoint').first().waitFor({ timeout: 180000 });
    const stopped = Date.now();
    log('VDemo: paused on breakpoint');

    // The stopped thread is the ticker, a virtual thread, named and marked so.
    const ticker = pane('Call Stack').locator('.monaco-list-row', { hasText: /ticker/ }).first();
    await ticker.waitFor({ timeout: 60000 });
    await firstStopShown(/^ticker /, 'VDemo.tick', /^\s*n\s*[=:]\s*\d+/);
    assert.match(await ticker.innerText(), /ticker \(virtual(, on [^)]+)?\)[\s\S]*Paused on breakpoint/i);

    // The Virtual Threads view: the 1,501 grouped by stack.
    const view = await expandedPane(/^\s*Virtual Threads/, 'Virtual Threads');
    const rowsOf = async (): Promise<string[]> => (await view.locator('.monaco-list-row').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    let rows: string[] = [];
    await eventually(
      async () => {
        rows = await rowsOf();
        return rows.some((r) => /^1501 virtual threads$/.test(r)) && rows.some((r) => /^1000 virtual threads/.test(r)) && rows.some((r) => /^500 virtual threads/.test(r));
      },
      180000,
      'the Virtual Threads view: 1501 virtual threads, groups of 1000 and 500',
    ).catch((e: Error) => {
      throw new Error(`${e.message}; rows: ${JSON.stringify(rows)}`);
    });
    log(`Virtual Threads view ${Date.now() - stopped} ms after the stop: ${JSON.stringify(rows)}`);
    // Each group says where its threads are: the program's own frame.
    assert.ok(rows.some((r) => /^1000 virtual threads\s*VDemo\.waitHere/.test(r)), `the 1000 waiting in waitHere: ${JSON.stringify(rows)}`);
    assert.ok(rows.some((r) => /^500 virtual threads\s*VDemo\.sleepHere/.test(r)), `the 500 sleeping in sleepHere: ${JSON.stringify(rows)}`);
    assert.ok(rows.some((r) => /^1 virtual thread\s*VDemo\.tick/.test(r)), `the ticker, stopped in tick: ${JSON.stringify(rows)}`);
    await shot('e2e-virtual-threads-view');

    // A group opens to its stack, top first (the JDK's parking), down to the
    // lambda that started its threads; a frame opens its source at its line.
    // (Room for the stack: the other panes of Run and Debug collapsed.)
    for (const other of [/^\s*Variables/, /^\s*Watch/, /^\s*Call Stack/, /^\s*Breakpoints/]) {
      const header = pane(other).locator('.pane-header').first();
      if ((await header.getAttribute('aria-expanded', { timeout: 5000 }).catch(() => null)) === 'true') {
        await header.click();
      }
    }
    const groupRow = view.locator('.monaco-list-row', { hasText: /^\s*1000 virtual threads/ }).first();
    await eventually(
      async () => {
        if ((await groupRow.getAttribute('aria-expanded')) !== 'true') {
          await groupRow.click();
        }
        return (await rowsOf()).some((r) => /^VDemo\.lambda\$main\$\d+/.test(r));
      },
      60000,
      "the group's frames, down to VDemo's lambda",
    ).catch(async (e: Error) => {
      throw new Error(`${e.message}; rows: ${JSON.stringify(await rowsOf())}`);
    });
    rows = await rowsOf();
    log(`Virtual Threads group opened: ${JSON.stringify(rows)}`);
    const parkAt = rows.findIndex((r) => /^VirtualThread\.park\s*line \d+$/.test(r));
    const waitAt = rows.findIndex((r) => /^VDemo\.waitHere\s*line 16$/.test(r));
    const lambdaAt = rows.findIndex((r) => /^VDemo\.lambda\$main\$\d+/.test(r));
    assert.ok(parkAt >= 0 && waitAt > parkAt && lambdaAt > waitAt, `the JDK's parking above waitHere (line 16) above the lambda: ${JSON.stringify(rows)}`);
    await shot('e2e-virtual-threads-group');
    await view.locator('.monaco-list-row', { hasText: /^\s*VDemo\.waitHere/ }).first().click();
    await eventually(
      async () => ((await page.locator('.statusbar-item', { hasText: /Ln \d+, Col \d+/ }).first().textContent({ timeout: 2000 }).catch(() => '')) ?? '').includes('Ln 16,'),
      30000,
      'the frame VDemo.waitHere opened at line 16',
    );
    log('Virtual Threads: the frame waitHere opened VDemo.java at line 16');
    for (const other of [/^\s*Variables/, /^\s*Call Stack/, /^\s*Breakpoints/]) {
      const header = pane(other).locator('.pane-header').first();
      if ((await header.getAttribute('aria-expanded', { timeout: 5000 }).catch(() => null)) !== 'true') {
        await header.click();
      }
    }

    // Running (no breakpoint left), the Threads panel's Virtual Threads
    // button: the VM's thread dump grouped by stack, without the debugger.
    await eventually(
      async () => {
        await pane(/^\s*Breakpoints/).locator('.pane-header').first().hover();
        await pane(/^\s*Breakpoints/)
          .locator('.pane-header [aria-label="Remove All Breakpoints"], .pane-header .codicon-breakpoints-remove-all')
          .first()
          .click({ timeout: 5000 });
        return true;
      },
      60000,
      'Remove All Breakpoints in the Breakpoints view',
    );
    await eventually(async () => ((await page.locator('.monaco-editor .codicon-debug-breakpoint').count()) === 0 ? true : undefined), 30000, 'no breakpoint left');
    await palette('Debug: Continue');
    await page.getByText('Paused on breakpoint').first().waitFor({ state: 'hidden', timeout: 60000 });
    await palette('ddmbridge: Show Threads');
    const threads = await webviewWith('#thread-dump', 120000, 'the Threads panel');
    await eventually(async () => /VDemo/.test((await threads.locator('#vm-title').textContent()) ?? ''), 120000, "the Threads panel on the session's VM (VDemo)");
    await threads.locator('#thread-dump').click();
    const asked = Date.now();
    const groups = threads.locator('#vthreads details.vgroup summary');
    await groups.first().waitFor({ timeout: 180000 }).catch(async (e: Error) => {
      throw new Error(`${e.message}; panel: ${(await threads.locator('body').innerText().catch(() => '')).slice(0, 600)}`);
    });
    log(`thread dump shown ${Date.now() - asked} ms after the button`);
    const head = (await threads.locator('#vthreads .title').innerText()).trim();
    const summaries = (await groups.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    log(`Threads panel thread dump: "${head}"; ${JSON.stringify(summaries)}`);
    assert.match(head, /^1501 virtual threads in \d+ stacks · thread dump of 25/);
    assert.ok(summaries.some((s) => /^1000 virtual threads\s*fixture\.VDemo\.waitHere\(VDemo\.java:16\)[\s\S]*1000 WAITING/.test(s)), `the 1000 waiting: ${JSON.stringify(summaries)}`);
    assert.ok(summaries.some((s) => /^500 virtual threads\s*fixture\.VDemo\.sleepHere\(VDemo\.java:21\)[\s\S]*500 TIMED_WAITING/.test(s)), `the 500 sleeping: ${JSON.stringify(summaries)}`);
    // Shown where the button was pressed, not below the table of 1,500 rows.
    assert.ok(await threads.locator('#vthreads .title').isVisible(), 'the thread dump scrolled into view');
    await eventually(
      async () => threads.locator('#vthreads .title').evaluate((e) => { const r = e.getBoundingClientRect(); return r.top >= 0 && r.top < window.innerHeight; }),
      10000,
      'the thread dump scrolled into the panel',
    );
    await shot('e2e-threads-virtual-dump');
    await palette('Debug: Disconnect');
    await page.locator('.debug-toolbar').first().waitFor({ state: 'hidden', timeout: 60000 });
  } finally {
    vm.kill('SIGKILL');
  }
});

// Android: F5 on a launch configuration with packageName starts the app on
// the simulated device (am start -D); Stop force-stops it there, as Android
// Studio does. The simulated VM answers NOT_IMPLEMENTED to much of JDWP:
// none of that reaches the user as a toast.
test('code-server: Stop on an Android launch force-stops the app on the device; no NOT_IMPLEMENTED toasts', { timeout: 900_000 }, async () => {
  await openWorkbench();
  const pkg = 'com.example.launched';
  const dev = spawn(backendBin, ['simdevice', '--listen', '127.0.0.1:0', '--procs', '0', '--packages', pkg, '--model', 'Launcher'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    let printed = '';
    dev.stdout!.on('data', (d: Buffer) => (printed += d.toString()));
    const addr = await eventually(() => /listening on (\S+)/.exec(printed)?.[1], 180000, `simdevice's address (printed: ${printed})`);
    const adb = (...args: string[]): string =>
      execFileSync('adb', ['-P', String(adbPort), ...args], { env: { ...process.env, HOME: adbHome }, timeout: 30_000 }).toString();
    const pidof = (): string => {
      try {
        return adb('-s', addr, 'shell', 'pidof', pkg).trim();
      } catch {
        return ''; // pidof exits 1 when nothing runs
      }
    };
    adb('connect', addr);
    await eventually(() => adb('devices').includes(`${addr}\tdevice`), 180000, 'the simulated device online');
    assert.equal(pidof(), '', 'the app is not running before the launch');

    // A launch configuration for the app on this device.
    const launchJson = path.join(wsDir, '.vscode', 'launch.json');
    const cfg = JSON.parse(fs.readFileSync(launchJson, 'utf8')) as { configurations: Record<string, unknown>[] };
    cfg.configurations = cfg.configurations.filter((c) => c.name !== 'Launch the Android app');
    cfg.configurations.push({ type: 'ddmbridge', request: 'launch', name: 'Launch the Android app', packageName: pkg, launchActivity: '.Main', targetDevice: addr });
    fs.writeFileSync(launchJson, JSON.stringify(cfg, null, 2));

    await eventually(
      async () => {
        await page.keyboard.press('Escape');
        await palette('Debug: Select and Start Debugging');
        const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Launch the Android app' });
        try {
          await row.first().waitFor({ timeout: 10000 });
        } catch {
          return false; // launch.json not read again yet
        }
        await row.first().click();
        return true;
      },
      120000,
      'the Android launch configuration in the picker',
    );
    const pid = await eventually(() => pidof() || undefined, 180000, `${pkg} running on the device`);
    // The session is on: the explorer shows the app with a debugger.
    await palette('View: Show ddmbridge');
    await page.locator('.monaco-list-row', { hasText: pkg }).first().waitFor({ timeout: 120000 });
    await palette('Debug: Stop');
    await eventually(() => pidof() === '', 120000, `${pkg} (pid ${pid}) gone from the device after Stop`).catch((e: Error) => {
      throw new Error(`${e.message}\n${channelLog().slice(-5000)}`);
    });
    // And from the explorer: no vms/changed of the dead VM after its vms/removed
    // (bridge: TestNoVMEventAfterRemoved, cmd/ddmbridge: TestServeForceStopRemovesTheApp).
    await page
      .locator('.monaco-list-row', { hasText: pkg })
      .first()
      .waitFor({ state: 'hidden', timeout: 120000 })
      .catch((e: Error) => {
        throw new Error(`${pkg} still listed in the ddmbridge explorer after Stop: ${e.message}\n${channelLog().slice(-5000)}`);
      });
    // The explorer is still in view: its device row stays, without the app under it.
    await page.locator('.monaco-list-row', { hasText: `Launcher (${addr})` }).first().waitFor({ timeout: 60000 });
    const toasts = await page.locator('.notification-toast').allTextContents();
    assert.ok(!toasts.some((t) => /NOT_IMPLEMENTED|not implemented/i.test(t)), `no NOT_IMPLEMENTED toast: ${JSON.stringify(toasts)}`);
    await shot('e2e-android-stopped');
    log(`Stop force-stopped ${pkg} (pid ${pid})`);
    adb('disconnect', addr);
  } finally {
    dev.kill('SIGKILL');
  }
});

// The Kotlin e2e tests' workspace: the fixture compiled by the real Kotlin
// compiler, its sources under kotlin/, launch configurations for its main
// (plain, and --chain: a coroutine's suspend chain). Returns the source root.
let kotlinRoot: string | undefined;
async function kotlinWorkspace(): Promise<string> {
  if (kotlinRoot) {
    return kotlinRoot;
  }
  const kt = await compileKotlinFixture();
  log(`Kotlin fixture compiled: ${kt.classes}`);
  const root = path.join(wsDir, 'kotlin');
  for (const dir of ['app', 'lib']) {
    fs.mkdirSync(path.join(root, dir), { recursive: true });
    for (const f of fs.readdirSync(path.join(kt.sources, dir))) {
      fs.copyFileSync(path.join(kt.sources, dir, f), path.join(root, dir, f));
    }
  }
  const launchFile = path.join(wsDir, '.vscode', 'launch.json');
  const launch = JSON.parse(fs.readFileSync(launchFile, 'utf8')) as { configurations: Record<string, unknown>[] };
  const base = { type: 'ddmbridge', request: 'launch', mainClass: kt.mainClass, classPaths: kt.classPath, sourcePaths: ['${workspaceFolder}/kotlin'] };
  launch.configurations.push({ ...base, name: 'Launch Kotlin app' }, { ...base, name: 'Launch Kotlin coroutines', args: ['--chain'] });
  fs.writeFileSync(launchFile, JSON.stringify(launch, null, 2));
  kotlinRoot = root;
  return root;
}

/** Opens kotlin/app/NAME in the editor. */
async function openKotlinFile(name: string): Promise<void> {
  await eventually(
    async () => {
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+P');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible', timeout: 15000 });
      await input.fill(`kotlin/app/${name}`);
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: name });
      await row.first().waitFor({ state: 'visible', timeout: 15000 });
      await row.first().click();
      await page.locator('.tab.active', { hasText: name }).waitFor({ timeout: 15000 });
      return true;
    },
    120000,
    `${name} open`,
  );
}

/** Toggles a breakpoint on a line of the active editor, waiting for its glyph. */
async function breakpointOnLine(line: number): Promise<void> {
  await page.locator('.monaco-editor .view-lines').first().click();
  await page.keyboard.press('Control+G');
  await page.locator('.quick-input-widget input').fill(`:${line}`);
  await page.keyboard.press('Enter');
  const before = await page.locator('.monaco-editor .codicon-debug-breakpoint').count();
  await page.keyboard.press('F9');
  await eventually(async () => (await page.locator('.monaco-editor .codicon-debug-breakpoint').count()) > before, 30000, `a breakpoint on line ${line}`);
}

/**
 * Waits until the Call Stack lists frames matching want, one after the
 * other (the stopped thread, "main" unless told, opened as a user does when
 * VS Code leaves it collapsed, and its folded frames shown), and returns the
 * frame rows.
 */
async function topStackFrames(want: RegExp[], what: string, thread: RegExp = /^\s*main/): Promise<string[]> {
  const frames = async (): Promise<string[]> =>
    (await pane('Call Stack').locator('.monaco-list-row').allTextContents())
      .map((t) => t.replace(/\s+/g, ' ').trim())
      .filter((t) => !/Paused|Running/i.test(t) && !thread.test(t));
  let shown: string[] = [];
  await eventually(
    async () => {
      // (hovered, a thread's row shows buttons instead of its state).
      const row = pane('Call Stack').locator('.monaco-list-row[aria-level="1"][aria-expanded="false"]', { hasText: thread }).first();
      if ((await row.count()) > 0) {
        await row.click();
        await page.keyboard.press('ArrowRight');
      }
      // VS Code folds subtle frames (an async stack's) under "Show N More Stack Frames".
      const more = pane('Call Stack').locator('.monaco-list-row', { hasText: /Show \d+ More Stack Frames?/ }).first();
      if ((await more.count()) > 0) {
        await more.click();
      }
      shown = await frames();
      const i = shown.findIndex((f) => want[0].test(f));
      return i >= 0 && want.every((re, k) => re.test(shown[i + k] ?? '')) ? true : undefined;
    },
    60000,
    what,
  ).catch((e: Error) => {
    throw new Error(`${e.message}; Call Stack: ${JSON.stringify(shown)}`);
  });
  return shown;
}

// Kotlin (issue 37): the Go tests' Kotlin fixture, compiled by the real
// Kotlin 2 compiler, launched by F5 on a Kotlin launch configuration
// (mainClass app.MainKt, kotlin-stdlib on the class path). Breakpoints in .kt
// files (a language the extension contributes, so a plain code-server takes
// them) verify and stop; the Call Stack reads .kt files and Kotlin lines,
// code inlined from another file as its own "(inlined)" frame; the Variables
// show Kotlin's names (this@apply, no $i$ markers); the Debug Console takes
// Kotlin (?. and a string template); step over an inline call stays in the
// frame.
test('code-server: Kotlin — F5 on a Kotlin main, .kt breakpoints, Kotlin frames and names, the Debug Console in Kotlin, step over inline', { timeout: 1_500_000 }, async () => {
  const ktRoot = await kotlinWorkspace();
  const mainKt = path.join(ktRoot, 'app', 'Main.kt');
  const utilKt = path.join(ktRoot, 'app', 'Util.kt');
  const shapesKt = path.join(ktRoot, 'app', 'Shapes.kt');
  await openWorkbench();
  const applyLine = kotlinLine(mainKt, 'applyBody');
  const callTwiceLine = kotlinLine(mainKt, 'callTwice');
  const afterTwiceLine = kotlinLine(mainKt, 'afterTwice');
  const loggedLine = kotlinLine(utilKt, 'loggedBody');
  const callLoggedLine = kotlinLine(shapesKt, 'callLogged');
  const lateLoggedLine = kotlinLine(path.join(ktRoot, 'lib', 'Late.kt'), 'lateLogged');

  // Breakpoints: in an apply lambda and on a call of an inline function
  // (Main.kt), and in the inline function logged's body (Util.kt), which
  // app.Shapes inlines when it loads.
  await openKotlinFile('Main.kt');
  // The extension makes .kt files Kotlin (code-server has no Kotlin language of its own).
  await page.locator('.statusbar-item', { hasText: /^Kotlin$/ }).first().waitFor({ timeout: 30000 });
  await breakpointOnLine(applyLine);
  await breakpointOnLine(callTwiceLine);
  await openKotlinFile('Util.kt');
  await breakpointOnLine(loggedLine);
  log(`Kotlin breakpoints at Main.kt:${applyLine}, Main.kt:${callTwiceLine}, Util.kt:${loggedLine}`);

  // F5 on the Kotlin launch configuration.
  await palette('Debug: Select and Start Debugging');
  const configRow = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Launch Kotlin app' });
  await configRow.first().waitFor({ timeout: 60000 });
  await configRow.first().click();
  await page.getByText('Paused on breakpoint').first().waitFor({ timeout: 180000 });
  log('Kotlin: paused on breakpoint');


  // 1. In describe's apply lambda: the frame reads Main.kt and the Kotlin line.
  await topStackFrames([new RegExp(`describe.*Main\\.kt\\s*${applyLine}:`)], `describe at Main.kt:${applyLine} in the Call Stack`);
  // The breakpoint verified: no hollow (unverified) breakpoint in Main.kt.
  assert.equal(await page.locator('.monaco-editor .codicon-debug-breakpoint-unverified').count(), 0, 'the Main.kt breakpoints are verified');
  await shot('e2e-kotlin-apply');
  // Variables: this@apply, and none of kotlinc's $i$ markers or $this$ names.
  let rows: string[] = [];
  await eventually(
    async () => {
      rows = (await pane('Variables').locator('.monaco-list-row').allTextContents()).map((t) => t.trim());
      if (rows.some((r) => /^this@apply\s*[=:]/.test(r))) {
        return true;
      }
      const locals = pane('Variables').locator('.monaco-list-row', { hasText: 'Locals' }).first();
      if ((await locals.count()) > 0 && (await locals.getAttribute('aria-expanded')) !== 'true') {
        await locals.click();
      }
      return undefined;
    },
    60000,
    'this@apply in the Variables view',
  ).catch((e: Error) => {
    throw new Error(`${e.message}; Variables: ${JSON.stringify(rows)}`);
  });
  assert.ok(rows.some((r) => /^shop\s*[=:]/.test(r)), `the parameter shop among the Variables: ${JSON.stringify(rows)}`);
  assert.ok(!rows.some((r) => /\$i\$|\$this\$/.test(r)), `no $i$ markers or $this$ names in the Variables: ${JSON.stringify(rows)}`);
  log(`Kotlin variables: ${JSON.stringify(rows)}`);

  // The Debug Console in Kotlin: ?. and a string template.
  await palette('Debug Console: Focus on Debug Console View');
  const replInput = page.locator('.repl-input-wrapper .monaco-editor').first();
  await replInput.waitFor({ timeout: 30000 });
  const evaluate = async (expr: string, want: RegExp): Promise<void> => {
    await replInput.click();
    await page.keyboard.insertText(expr);
    await page.keyboard.press('Enter');
    const out = page.locator('.repl .monaco-list-row').filter({ hasText: want });
    await out
      .first()
      .waitFor({ timeout: 60000 })
      .catch(async (e: Error) => {
        throw new Error(`${expr}: ${e.message}; console: ${JSON.stringify(await page.locator('.repl .monaco-list-row').allTextContents())}`);
      });
  };
  await evaluate('"${shop?.title}: ${shop.orders.size} orders"', /"corner: 2 orders"/);
  await evaluate('shop.orders.firstOrNull()?.name ?: "none"', /"tea"/);
  await shot('e2e-kotlin-console');
  log('Kotlin: the Debug Console evaluated ?. and a template');

  // 2. Continue to the call of the inline function twice; step over it: the
  // step stays in main's frame and lands on the next line, never in Util.kt.
  await palette('Debug: Continue');
  await topStackFrames([new RegExp(`main.*Main\\.kt\\s*${callTwiceLine}:`)], `main at Main.kt:${callTwiceLine}`);
  await palette('Debug: Step Over');
  await page.getByText('Paused on step').first().waitFor({ timeout: 120000 });
  const afterStep = await topStackFrames([new RegExp(`main.*Main\\.kt\\s*${afterTwiceLine}:`)], `main at Main.kt:${afterTwiceLine} after the step over`);
  assert.ok(!afterStep.some((f) => /inlined|Util\.kt/.test(f)), `the step over stayed in main's frame: ${JSON.stringify(afterStep)}`);
  await shot('e2e-kotlin-step-over-inline');
  log('Kotlin: step over an inline call stayed in the frame');

  // 3. Continue into logged's body, inlined into app.Shapes (loaded since the
  // breakpoint was set): logged's own frame over Shapes.describeAll's.
  await palette('Debug: Continue');
  const inl = await topStackFrames(
    [new RegExp(`logged \\(inlined\\).*Util\\.kt\\s*${loggedLine}:`), new RegExp(`Shapes\\.describeAll.*Shapes\\.kt\\s*${callLoggedLine}:`)],
    `logged (inlined) at Util.kt:${loggedLine} over Shapes.describeAll at Shapes.kt:${callLoggedLine}`,
  );
  await shot('e2e-kotlin-inlined-frame');
  log(`Kotlin: inline frame ${JSON.stringify(inl.slice(0, 3))}`);

  // 4. Continue into logged's body inlined into lib.Late, of another package,
  // loaded last: the breakpoint binds there as it loads.
  await palette('Debug: Continue');
  await topStackFrames(
    [new RegExp(`logged \\(inlined\\).*Util\\.kt\\s*${loggedLine}:`), new RegExp(`Late\\.run.*Late\\.kt\\s*${lateLoggedLine}:`)],
    `logged (inlined) at Util.kt:${loggedLine} over Late.run at Late.kt:${lateLoggedLine}`,
  );
  log('Kotlin: inline frame in lib.Late');

  // The program runs to its end.
  await palette('Debug: Continue');
  await eventually(async () => ((await page.locator('.debug-toolbar').first().isVisible()) ? undefined : true), 120000, 'the Kotlin program ended').catch(
    (e: Error) => {
      throw new Error(`${e.message}\n${channelLog().slice(-4000)}`);
    },
  );
  log('Kotlin scenario done');
});

// Kotlin coroutines (issue 37): the fixture's three-deep suspend chain
// (chainA → chainB → chainC, resumed on a Dispatchers.Default thread after
// delay and yield), stopped in chainC: the Call Stack continues past the
// coroutine's frame with the "Async stack trace" label and the
// continuations that resume after it (chainB, chainA at the lines they
// suspended on); the Coroutines view lists the coroutine (chain#…, running
// on Dispatchers.Default, said to come from the stopped threads'
// continuations: no DebugProbes in this app) with that stack.
test('code-server: Kotlin coroutines — the async stack in the Call Stack, the Coroutines view', { timeout: 1_500_000 }, async () => {
  const ktRoot = await kotlinWorkspace();
  const coKt = path.join(ktRoot, 'app', 'Coroutines.kt');
  await openWorkbench();
  await openKotlinFile('Coroutines.kt');
  const afterLine = kotlinLine(coKt, 'chainCAfter');
  await breakpointOnLine(afterLine);
  await palette('Debug: Select and Start Debugging');
  const configRow = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Launch Kotlin coroutines' });
  await configRow.first().waitFor({ timeout: 60000 });
  await configRow.first().click();
  await page.getByText('Paused on breakpoint').first().waitFor({ timeout: 180000 });
  log('coroutines: paused in chainC');

  const worker = /^\s*DefaultDispatcher-worker/;
  await topStackFrames([new RegExp(`chainC.*Coroutines\\.kt\\s*${afterLine}:`)], `chainC at Coroutines.kt:${afterLine}`, worker);
  const stack = await topStackFrames(
    // (an async frame has a line and no column).
    [/Async stack trace/, new RegExp(`chainB.*Coroutines\\.kt\\s*${kotlinLine(coKt, 'chainB')}(:|$)`), new RegExp(`chainA.*Coroutines\\.kt\\s*${kotlinLine(coKt, 'chainA')}(:|$)`)],
    'the async stack: the label, chainB and chainA at the lines they suspended on',
    worker,
  );
  await shot('e2e-kotlin-async-stack');
  log(`coroutines: async stack ${JSON.stringify(stack.slice(0, 6))}`);
  // The label frame shows its name alone: the adapter sends it without a
  // source (line 0, presentationHint label) and VS Code hides a label
  // frame's file part — the text content (read above) still holds the
  // "Unknown Source 0" VS Code writes there, hidden.
  const labelRow = pane('Call Stack').locator('.monaco-list-row', { hasText: /Async stack trace/ }).first();
  assert.equal((await labelRow.innerText()).replace(/\s+/g, ' ').trim(), 'Async stack trace', 'the async stack label as shown');

  // The Coroutines view beside the Call Stack.
  const view = await expandedPane(/^\s*Coroutines/, 'Coroutines');
  const chain = view.locator('.monaco-list-row', { hasText: /chain#\d+/ }).first();
  let rows: string[] = [];
  await eventually(
    async () => {
      rows = (await view.locator('.monaco-list-row').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
      return rows.some((r) => /chain#\d+.*running.*Dispatchers\.Default.*chainC/.test(r)) ? true : undefined;
    },
    120000,
    'chain#… running on Dispatchers.Default in chainC, in the Coroutines view',
  ).catch((e: Error) => {
    throw new Error(`${e.message}; Coroutines view: ${JSON.stringify(rows)}`);
  });
  assert.ok(
    rows.some((r) => /coroutines? from the continuations of stopped threads/.test(r)),
    `the view says where the list comes from: ${JSON.stringify(rows)}`,
  );
  // Its stack: chainC's frame, then the continuations chainB and chainA.
  rows = [];
  await chain.click();
  await page.keyboard.press('ArrowRight');
  await eventually(
    async () => {
      rows = [...new Set([...rows, ...(await view.locator('.monaco-list-row').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim())])];
      const i = rows.findIndex((r) => /chain#\d+/.test(r));
      const below = rows.slice(i + 1).join(' | ');
      if (i >= 0 && /chainC/.test(below) && /chainB/.test(below) && /chainA/.test(below)) {
        return true;
      }
      // The list draws the rows in sight: bring the last ones into it.
      await page.keyboard.press('End');
      return undefined;
    },
    60000,
    "the coroutine's stack (chainC, chainB, chainA) in the Coroutines view",
  ).catch((e: Error) => {
    throw new Error(`${e.message}; Coroutines view: ${JSON.stringify(rows)}`);
  });
  await shot('e2e-kotlin-coroutines-view');
  log(`coroutines view: ${JSON.stringify(rows.slice(0, 8))}`);

  // The program runs to its end.
  await palette('Debug: Continue');
  await eventually(async () => ((await page.locator('.debug-toolbar').first().isVisible()) ? undefined : true), 120000, 'the coroutines program ended').catch(
    (e: Error) => {
      throw new Error(`${e.message}\n${channelLog().slice(-4000)}`);
    },
  );
  log('coroutines scenario done');
});
