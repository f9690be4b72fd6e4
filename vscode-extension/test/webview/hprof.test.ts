// The HPROF editor's webview in headless Chromium, with the same HTML, CSP
// and script VS Code loads, fed answers shaped as the backend's hprof/*
// methods give them (the heap map: a recorded one, same form). The heap map
// and legend are checked pixel by pixel.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { makeNonce, webviewHtml } from '../../src/webview/html';
import type { ToWebview } from '../../src/webview/messages';
import { webviewScript } from '../../src/viewList';
import { launchChromium, serveStatic, StaticServer, vscodeStub } from '../support/browser';
import { extRoot } from '../support/fixtures';
import { countColor, decodePng, Image } from '../support/png';

const rec = JSON.parse(fs.readFileSync(path.join(extRoot, 'test', 'fixtures', 'ddm-recording.json'), 'utf8')) as {
  heapMap: {
    pieces: { unitSize: number }[];
    totals: { freeBytes: number; byKind: Record<string, number> };
    legend: { key: string; color: string }[];
  };
};

/** The colour the backend's legend gives key, as RGB. */
function legendRGB(key: string): number[] {
  const c = rec.heapMap.legend.find((l) => l.key === key)!.color;
  return [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));
}
const shots = path.join(extRoot, 'test-results');

let browser: Browser;
let server: StaticServer;

before(async () => {
  fs.mkdirSync(shots, { recursive: true });
  server = await serveStatic(extRoot);
  server.page(
    '/hprof.html',
    webviewHtml({
      title: 'Heap dump',
      cspSource: server.origin,
      nonce: makeNonce(),
      scriptUri: `${server.origin}/out/webview/${webviewScript('hprof')}`,
      styleUri: `${server.origin}/media/webview.css`,
      view: 'hprof',
    }),
  );
  server.page(
    '/heap.html',
    webviewHtml({
      title: 'Heap map',
      cspSource: server.origin,
      nonce: makeNonce(),
      scriptUri: `${server.origin}/out/webview/${webviewScript('heap')}`,
      styleUri: `${server.origin}/media/webview.css`,
      view: 'heap',
    }),
  );
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

type Posted = { type: string; object?: number; class?: string; offset?: number };

async function open(view = 'hprof'): Promise<{ page: Page; problems: string[]; post(m: ToWebview): Promise<void>; posted(): Promise<Posted[]>; shot(sel: string, name: string): Promise<Image> }> {
  const page = await browser.newPage({ viewport: { width: 1100, height: 1000 }, deviceScaleFactor: 1 });
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') {
      problems.push(`console ${m.type()}: ${m.text()}`);
    }
  });
  await page.addInitScript(vscodeStub);
  await page.goto(`${server.origin}/${view}.html`);
  await page.waitForFunction(() => (window as unknown as { __posted: Posted[] }).__posted.some((m) => m.type === 'ready'));
  return {
    page,
    problems,
    post: (m) => page.evaluate((msg) => window.postMessage(msg, '*'), m),
    posted: () => page.evaluate(() => (window as unknown as { __posted: Posted[] }).__posted),
    shot: async (sel, name) => decodePng(await page.locator(sel).screenshot({ path: path.join(shots, `${name}.png`), animations: 'disabled' })),
  };
}

const summary = {
  path: '/work/dumps/app-4242.hprof',
  format: 'JAVA PROFILE 1.0.2',
  idSize: 8,
  timestamp: '2026-11-23T20:40:42.1Z',
  android: false,
  heaps: ['default'],
  objects: 1131,
  roots: 812,
  unresolved: 0,
  oops: 'compressed',
  partial: false,
  warnings: [],
  classes: [
    { class: 'byte[]', instances: 400, bytes: 19200 },
    { class: 'java.lang.String', instances: 500, bytes: 12000 },
    { class: 'BenchTarget$Node', instances: 200, bytes: 9600 },
    { class: 'int[]', instances: 30, bytes: 960 },
    { class: 'java.util.HashMap', instances: 1, bytes: 48 },
  ],
  totals: { classes: 5, instances: 1131, bytes: 41808 },
};

async function rowClasses(page: Page, table: string): Promise<string[]> {
  return page.$$eval(`#${table} tr[data-class]`, (rows) => rows.map((r) => r.getAttribute('data-class') ?? ''));
}

describe('HPROF editor webview', () => {
  test('histogram sorts and filters; dominator tree drills down and back; heap map in DDMS colours; diff', async () => {
    const o = await open();
    await o.post({ type: 'summary', body: summary });
    await o.page.waitForSelector('#histogram tr[data-class]');
    assert.equal(await o.page.textContent('#hprof-title'), 'Heap dump app-4242.hprof');
    assert.match((await o.page.textContent('#status')) ?? '', /1,131 objects of 5 classes/);
    assert.deepEqual(await rowClasses(o.page, 'histogram'), summary.classes.map((c) => c.class), 'biggest first');
    // Sort by instances (descending first), then ascending.
    await o.page.click('#histogram th[data-sort="instances"]');
    assert.deepEqual((await rowClasses(o.page, 'histogram')).slice(0, 2), ['java.lang.String', 'byte[]']);
    await o.page.click('#histogram th[data-sort="instances"]');
    assert.deepEqual((await rowClasses(o.page, 'histogram'))[0], 'java.util.HashMap');
    await o.page.click('#histogram th[data-sort="class"]');
    assert.deepEqual((await rowClasses(o.page, 'histogram'))[0], 'BenchTarget$Node');
    // Filter: arrays only; the total line sums what is shown.
    await o.page.fill('#hist-filter', '[]');
    assert.deepEqual(await rowClasses(o.page, 'histogram'), ['byte[]', 'int[]']);
    assert.equal(await o.page.getAttribute('#histogram tr.total td[data-bytes]', 'data-bytes'), '20160');
    assert.match((await o.page.textContent('#histogram tr.total')) ?? '', /2 of 5 classes/);
    await o.shot('body', 'hprof-histogram');

    // Dominators: asked for on first show; drill into an object and back.
    await o.page.click('#tab-dominators');
    assert.deepEqual((await o.posted()).at(-1), { type: 'dominators' });
    await o.post({
      type: 'dominators',
      body: {
        path: summary.path,
        children: [
          { id: 0x7ff001000, class: 'BenchTarget$Node[]', size: 816, retained: 30000, children: 200 },
          { id: 0x7ff002000, class: 'java.lang.String', size: 24, retained: 48, children: 1 },
          { id: 0x7ff003000, class: 'java.lang.Object', size: 16, retained: 16, children: 0 },
        ],
        more: 12,
        reachable: 1100,
        total: 40000,
      },
    });
    await o.page.waitForSelector('#dominators tr[data-id]');
    assert.equal(await o.page.locator('#dominators tr[data-id]').count(), 3);
    assert.match((await o.page.textContent('#dominators')) ?? '', /… and 12 smaller/);
    assert.equal(await o.page.locator('#dominators tr[data-class="java.lang.Object"] button.drill').count(), 0, 'a leaf has nothing to drill into');
    assert.match((await o.page.textContent('#dominators tr[data-class="BenchTarget$Node[]"]')) ?? '', /0x7ff001000.*29\.3 KiB.*75\.0%/);
    await o.page.click('#dominators tr[data-class="BenchTarget$Node[]"] button.drill');
    assert.deepEqual((await o.posted()).at(-1), { type: 'dominators', object: 0x7ff001000 });
    await o.post({
      type: 'dominators',
      body: {
        path: summary.path,
        object: { id: 0x7ff001000, class: 'BenchTarget$Node[]', size: 816, retained: 30000, children: 200 },
        children: [{ id: 0x7ff010000, class: 'BenchTarget$Node', size: 48, retained: 144, children: 2 }],
        more: 199,
        reachable: 1100,
        total: 40000,
      },
    });
    await o.page.waitForSelector('#dominators tr[data-class="BenchTarget$Node"]');
    assert.equal(await o.page.textContent('#dom-trail'), 'GC roots › BenchTarget$Node[] 0x7ff001000');
    await o.page.click('#dom-trail button.crumb[data-depth="0"]');
    assert.deepEqual((await o.posted()).at(-1), { type: 'dominators' });
    // Why the big one is alive: its paths to GC roots, from its row.
    await o.page.click('#dominators tr[data-class="BenchTarget$Node"] button.paths');
    assert.deepEqual((await o.posted()).at(-1), { type: 'paths', object: 0x7ff010000 });
    await o.page.click('#tab-dominators');

    // Heap map: asked for on first show, drawn with the DDM map's colours and legend.
    await o.page.click('#tab-heapmap');
    assert.deepEqual((await o.posted()).at(-1), { type: 'heapMap' });
    await o.post({ type: 'heapMap', body: rec.heapMap });
    await o.page.waitForSelector('#totals tr[data-kind]');
    const canvas = o.page.locator('#heap-canvas');
    const scale = Number(await canvas.getAttribute('data-scale'));
    const upp = Number(await canvas.getAttribute('data-upp'));
    const img = await o.shot('#heap-canvas', 'hprof-heapmap-canvas');
    const unit = rec.heapMap.pieces[0].unitSize;
    for (const [name, bytes] of Object.entries(rec.heapMap.totals.byKind)) {
      assert.equal(await o.page.getAttribute(`#totals tr[data-kind="${name}"] td[data-bytes]`, 'data-bytes'), String(bytes), `${name} bytes`);
      if (upp === 1) {
        // The recording's blocks are all hard-reachable: drawn in the legend's colour of their kind.
        const px = countColor(img, legendRGB(name));
        const expected = (bytes / unit) * scale * scale;
        assert.ok(Math.abs(px - expected) <= expected * 0.05 + 2 * scale, `${name}: ${px} pixels, expected about ${expected}`);
      }
    }
    assert.ok(countColor(img, legendRGB('free')) > 0, 'free space in the legend\'s free colour');
    const leg = await o.shot('#legend', 'hprof-legend');
    for (const l of rec.heapMap.legend) {
      assert.ok(countColor(leg, legendRGB(l.key)) >= 100, `legend swatch ${l.key} ${l.color}`);
    }

    // Diff: pick a base, then the changes, growth first.
    await o.page.click('#tab-diff');
    await o.page.click('#pick-base');
    assert.deepEqual((await o.posted()).at(-1), { type: 'pickBase' });
    await o.post({
      type: 'diff',
      body: {
        path: summary.path,
        base: '/work/dumps/app-4242-before.hprof',
        classes: [
          { class: 'BenchTarget$Node', instances: 150, bytes: 7200, oldInstances: 50, oldBytes: 2400, newInstances: 200, newBytes: 9600 },
          { class: 'java.util.HashMap', instances: -3, bytes: -144, oldInstances: 4, oldBytes: 192, newInstances: 1, newBytes: 48 },
        ],
        totals: { old: { classes: 5, instances: 984, bytes: 34752 }, new: { classes: 5, instances: 1131, bytes: 41808 } },
      },
    });
    await o.page.waitForSelector('#diff tr[data-class]');
    assert.deepEqual(await rowClasses(o.page, 'diff'), ['BenchTarget$Node', 'java.util.HashMap']);
    assert.match((await o.page.textContent('#diff tr[data-class="BenchTarget$Node"]')) ?? '', /\+150.*\+7\.03 KiB.*50 · 2\.34 KiB.*200 · 9\.38 KiB/);
    assert.match((await o.page.textContent('#diff tr[data-class="java.util.HashMap"]')) ?? '', /−3/);
    assert.equal(await o.page.textContent('#diff-base'), 'Changes since /work/dumps/app-4242-before.hprof');
    await o.shot('body', 'hprof-diff');

    await o.post({ type: 'error', message: 'Diff of app-4242.hprof: hprof: /x: no such file' });
    assert.equal(await o.page.textContent('#status'), 'Diff of app-4242.hprof: hprof: /x: no such file');
    const csp = await o.page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations);
    assert.deepEqual(csp, []);
    assert.deepEqual(o.problems, []);
    await o.page.close();
  });

  test('why alive: retained column, paths to GC roots from a histogram row, instances and incoming references paged; heap map zoom, scale and readout', async () => {
    const o = await open();
    await o.post({ type: 'summary', body: { ...summary, partial: true, warnings: ['the dump is cut short at byte 4096'] } });
    await o.page.waitForSelector('#histogram tr[data-class]');
    assert.match((await o.page.textContent('#status')) ?? '', /compressed references — PARTIAL: .* — the dump is cut short at byte 4096/);
    // The retained column is asked for at once and shows "…" until it comes.
    assert.ok((await o.posted()).some((m) => m.type === 'retained'));
    assert.equal(await o.page.locator('#histogram td[data-retained]').count(), 0);
    await o.post({
      type: 'retained',
      body: {
        path: summary.path,
        classes: [
          { class: 'java.util.HashMap', retained: 30000 },
          { class: 'BenchTarget$Node', retained: 21000 },
          { class: 'byte[]', retained: 19200 },
        ],
      },
    });
    await o.page.waitForSelector('#histogram td[data-retained]');
    assert.equal(await o.page.getAttribute('#histogram tr[data-class="java.util.HashMap"] td[data-retained]', 'data-retained'), '30000');
    await o.page.click('#histogram th[data-sort="retained"]');
    assert.deepEqual((await rowClasses(o.page, 'histogram')).slice(0, 2), ['java.util.HashMap', 'BenchTarget$Node'], 'sorted by retained size');

    // Paths to GC roots of a class's instances, merged, with the loader chain.
    await o.page.click('#histogram tr[data-class="BenchTarget$Node"] button.paths');
    assert.deepEqual((await o.posted()).at(-1), { type: 'paths', class: 'BenchTarget$Node' });
    assert.equal(await o.page.getAttribute('#tab-paths', 'aria-selected'), 'true');
    const node = (id: number, cls: string, targets: number, children: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({ id, class: cls, size: 16, targets, children, more: 0, ...extra });
    await o.post({
      type: 'paths',
      body: {
        path: summary.path,
        target: 'BenchTarget$Node',
        objects: 200,
        reached: 199,
        roots: [
          node(0x7ff000100, 'class sun.launcher.LauncherHelper', 199, [
            node(0x7ff000200, 'class BenchTarget', 199, [
              node(0x7ff000300, 'java.net.URLClassLoader', 199, [node(0x7ff000400, 'BenchTarget$Node', 1, [], { target: true, field: '[3]', fieldCount: 2 })], {
                elided: { count: 40, classes: [{ class: 'java.util.ArrayList', count: 40 }] },
                more: 197,
                field: 'static held',
              }),
            ], { field: 'static appClass' }),
          ], { root: 'sticky class' }),
        ],
        more: 0,
      },
    });
    await o.page.waitForSelector('#paths li.path-node');
    const chain = await o.page.$$eval('#paths li.path-node', (ls) => ls.map((l) => l.getAttribute('data-class')));
    assert.deepEqual(chain, ['class sun.launcher.LauncherHelper', 'class BenchTarget', 'java.net.URLClassLoader', 'BenchTarget$Node']);
    assert.match((await o.page.textContent('#paths li.path-node')) ?? '', /GC root: sticky class/);
    // Each step names the field or element of the step above that holds it.
    const fields = await o.page.$$eval('#paths li.path-node', (ls) => ls.map((l) => l.getAttribute('data-field')));
    assert.deepEqual(fields, ['', 'static appClass', 'static held', '[3]']);
    const line = async (cls: string): Promise<string> => (await o.page.textContent(`#paths li.path-node[data-class="${cls}"] > .node-line`)) ?? '';
    assert.match(await line('java.net.URLClassLoader'), /^static held → java\.net\.URLClassLoader 0x7ff000300/);
    assert.match(await line('BenchTarget$Node'), /^\[3\] and 1 more → BenchTarget\$Node/);
    assert.doesNotMatch(await line('class sun.launcher.LauncherHelper'), /→/);
    assert.match((await o.page.textContent('#paths')) ?? '', /… 40 objects elided \(java\.util\.ArrayList ×40\).*… and 197 more/);
    assert.match((await o.page.textContent('#paths-title')) ?? '', /199 of 200 objects reached \(1 not reachable/);
    await o.shot('body', 'hprof-paths');

    // The instances of a class, a page at a time, then an object's incoming references.
    await o.page.click('#tab-histogram');
    await o.page.click('#histogram tr[data-class="BenchTarget$Node"] button.instances');
    assert.deepEqual((await o.posted()).at(-1), { type: 'instances', class: 'BenchTarget$Node', offset: 0 });
    const objs = Array.from({ length: 100 }, (_, k) => ({ id: 0x7ff010000 + 0x30 * k, class: 'BenchTarget$Node', size: 48, retained: 144 }));
    await o.post({ type: 'instances', body: { path: summary.path, class: 'BenchTarget$Node', total: 200, offset: 0, objects: objs } });
    await o.page.waitForSelector('#objects tr[data-id]');
    assert.equal(await o.page.locator('#objects tr[data-id]').count(), 100);
    assert.match((await o.page.textContent('#objects-title')) ?? '', /Instances of BenchTarget\$Node, largest retained size first: 1–100 of 200/);
    assert.equal(await o.page.isDisabled('#page-prev'), true);
    await o.page.click('#page-next');
    assert.deepEqual((await o.posted()).at(-1), { type: 'instances', class: 'BenchTarget$Node', offset: 100 });
    await o.page.click(`#objects tr[data-id="${0x7ff010000}"] button.incoming`);
    assert.deepEqual((await o.posted()).at(-1), { type: 'incoming', object: 0x7ff010000, offset: 0 });
    await o.post({
      type: 'incoming',
      body: {
        path: summary.path,
        object: { id: 0x7ff010000, class: 'BenchTarget$Node', size: 48 },
        total: 2,
        offset: 0,
        referrers: [
          { id: 0x7ff001000, class: 'BenchTarget$Node[]', size: 816, field: '[7]' },
          { id: 0x7ff002000, class: 'java.lang.Thread', size: 112, root: 'thread', rootDetail: 'thread main' },
        ],
        instances: 0,
      },
    });
    await o.page.waitForSelector(`#objects tr[data-id="${0x7ff002000}"]`);
    assert.match((await o.page.textContent('#objects-title')) ?? '', /Objects that refer to BenchTarget\$Node 0x7ff010000: 1–2 of 2/);
    assert.match((await o.page.textContent(`#objects tr[data-id="${0x7ff002000}"]`)) ?? '', /GC root: thread — thread main/);
    // The referrer's element that holds the object, in the How column.
    assert.equal(await o.page.getAttribute(`#objects tr[data-id="${0x7ff001000}"]`, 'data-field'), '[7]');
    assert.equal(await o.page.textContent(`#objects tr[data-id="${0x7ff001000}"] td:nth-child(4)`), '[7]');
    await o.page.click(`#objects tr[data-id="${0x7ff001000}"] button.paths`);
    assert.deepEqual((await o.posted()).at(-1), { type: 'paths', object: 0x7ff001000 });

    // The heap map: zoom in and out, the scale follows, the readout names the address.
    await o.page.click('#tab-heapmap');
    await o.post({ type: 'heapMap', body: rec.heapMap });
    await o.page.waitForSelector('#totals tr[data-kind]');
    const canvas = o.page.locator('#heap-canvas');
    const before = { upp: Number(await canvas.getAttribute('data-upp')), scale: Number(await canvas.getAttribute('data-scale')) };
    const unit = rec.heapMap.pieces[0].unitSize;
    assert.equal(await o.page.getAttribute('#map-scale', 'data-pixel-bytes'), String(before.upp * unit));
    assert.ok((await o.page.locator('#map-ruler .tick').count()) > 0, 'row addresses down the side');
    const firstTick = Number(await o.page.getAttribute('#map-ruler .tick', 'data-address'));
    assert.equal(firstTick, (rec.heapMap.pieces[0] as unknown as { start: number }).start, 'the first row starts at the first piece');
    await o.page.click('#zoom-out');
    await o.page.click('#zoom-out');
    const out = { upp: Number(await canvas.getAttribute('data-upp')), scale: Number(await canvas.getAttribute('data-scale')) };
    assert.equal(out.upp / out.scale, (before.upp / before.scale) * 4, 'two steps out: 4× the bytes per screen pixel');
    assert.equal(await o.page.getAttribute('#map-scale', 'data-pixel-bytes'), String(out.upp * unit));
    await o.page.click('#zoom-in');
    await o.page.click('#zoom-in');
    await o.page.click('#zoom-in');
    const zin = { upp: Number(await canvas.getAttribute('data-upp')), scale: Number(await canvas.getAttribute('data-scale')) };
    assert.equal(zin.upp / zin.scale, before.upp / before.scale / 2, 'one step in from where it was');
    const box = (await canvas.boundingBox())!;
    await o.page.mouse.move(box.x + 1, box.y + 1);
    assert.match((await o.page.textContent('#hover')) ?? '', /^0x[0-9A-F]{8} — /);
    await o.shot('body', 'hprof-heapmap-zoomed');
    assert.deepEqual(o.problems, []);
    await o.page.close();
  });

  test('a big dump: the streamed histogram first, then the retained sizes with progress and Cancel; stopped, they can start again', async () => {
    const o = await open();
    assert.equal(await o.page.isVisible('#hprof-work'), false, 'no work shown before any');
    const size = 6_000_000_000;
    await o.post({ type: 'progress', body: { path: summary.path, phase: 'histogram', read: 1_500_000_000, size } });
    await o.page.waitForSelector('#hprof-work', { state: 'visible' });
    assert.equal(await o.page.getAttribute('#hprof-progress', 'value'), '25');
    assert.match((await o.page.textContent('#hprof-progress-label')) ?? '', /Reading the histogram: 25% of 5\.59 GiB/);
    // The histogram arrives: shown at once; the retained sizes are asked for.
    await o.post({ type: 'summary', body: { ...summary, streamed: true } });
    await o.page.waitForSelector('#histogram tr[data-class]');
    assert.equal(await o.page.isVisible('#hprof-work'), false);
    assert.deepEqual((await o.posted()).at(-1), { type: 'retained' });
    // The model's parse reports its progress; Cancel asks the editor to stop it.
    await o.post({ type: 'progress', body: { path: summary.path, phase: 'parsing', read: 3_000_000_000, size } });
    await o.page.waitForSelector('#hprof-cancel', { state: 'visible' });
    assert.match((await o.page.textContent('#hprof-progress-label')) ?? '', /Reading the objects and references for the retained sizes: 50% of 5\.59 GiB/);
    await o.page.click('#hprof-cancel');
    assert.deepEqual((await o.posted()).at(-1), { type: 'cancel' });
    await o.post({ type: 'stopped', message: 'Retained sizes of app-4242.hprof: stopped.' });
    await o.page.waitForSelector('#hprof-restart', { state: 'visible' });
    assert.equal(await o.page.isVisible('#hprof-cancel'), false);
    assert.match((await o.page.textContent('#hprof-progress-label')) ?? '', /Stopped: the retained sizes were not computed/);
    assert.equal(await o.page.locator('#histogram tr[data-class]').count(), summary.classes.length, 'the histogram stays');
    // Started again: the tree's phase has Cancel too (hprof/cancel stops it); its answer ends the work shown.
    await o.page.click('#hprof-restart');
    assert.deepEqual((await o.posted()).at(-1), { type: 'retained' });
    await o.post({ type: 'progress', body: { path: summary.path, phase: 'dominators', read: size, size } });
    await o.page.waitForFunction(() => document.getElementById('hprof-progress-label')?.textContent === 'Computing the dominator tree…');
    assert.equal(await o.page.isVisible('#hprof-cancel'), true);
    assert.equal(await o.page.getAttribute('#hprof-progress', 'value'), null, 'indeterminate');
    await o.post({ type: 'retained', body: { path: summary.path, classes: [{ class: 'byte[]', retained: 19200 }] } });
    await o.page.waitForSelector('#hprof-work', { state: 'hidden' });
    // A diff streams both dumps: their progress shows until its answer.
    await o.post({ type: 'progress', body: { path: '/work/dumps/older.hprof', phase: 'histogram', read: 10, size: 40 } });
    await o.page.waitForSelector('#hprof-work', { state: 'visible' });
    await o.post({ type: 'diff', body: { path: summary.path, base: '/work/dumps/older.hprof', classes: [], totals: { old: summary.totals, new: summary.totals } } });
    await o.page.waitForSelector('#hprof-work', { state: 'hidden' });
    assert.deepEqual(o.problems, []);
    await o.page.close();
  });

  test('a big dump stopped while its histogram is read: started again, the histogram first, then the retained sizes', async () => {
    const o = await open();
    const size = 6_000_000_000;
    await o.post({ type: 'progress', body: { path: summary.path, phase: 'histogram', read: 600_000_000, size } });
    await o.page.waitForSelector('#hprof-cancel', { state: 'visible' });
    await o.page.click('#hprof-cancel');
    assert.deepEqual((await o.posted()).at(-1), { type: 'cancel' });
    await o.post({ type: 'stopped', message: 'Histogram of app-4242.hprof: stopped.' });
    await o.page.waitForSelector('#hprof-restart', { state: 'visible' });
    assert.match((await o.page.textContent('#hprof-progress-label')) ?? '', /Stopped: the histogram was not read/);
    // A tab clicked meanwhile needs the histogram: it asks nothing, and the dump stays stopped.
    const asked = (await o.posted()).length;
    await o.page.click('#tab-dominators');
    await o.page.click('#tab-histogram');
    assert.equal((await o.posted()).length, asked, 'nothing started without the histogram');
    assert.equal(await o.page.isVisible('#hprof-restart'), true, 'still stopped');
    // Started again: the histogram first; its answer asks for the retained sizes.
    await o.page.click('#hprof-restart');
    assert.deepEqual((await o.posted()).at(-1), { type: 'summary' });
    await o.post({ type: 'summary', body: { ...summary, streamed: true } });
    await o.page.waitForSelector('#histogram tr[data-class]');
    assert.deepEqual((await o.posted()).at(-1), { type: 'retained' });
    assert.equal(await o.page.isVisible('#hprof-work'), false);
    assert.deepEqual(o.problems, []);
    await o.page.close();
  });

  test('a malformed answer is reported, not rendered', async () => {
    const o = await open();
    await o.post({ type: 'summary', body: { ...summary, classes: 'nope' } });
    await o.page.waitForSelector('#status.error');
    assert.match((await o.page.textContent('#status')) ?? '', /Cannot read the answer: hprof\/summary\.classes: expected an array, got "nope"/);
    assert.deepEqual(o.problems, []);
    await o.page.close();
  });
});

describe('DDM heap map webview on a VM without DDM', () => {
  test('says so instead of waiting for a map, and offers Dump Heap', async () => {
    const o = await open('heap');
    await o.post({ type: 'vm', vm: { id: '3', name: 'fixture.Sample', source: 'backend' } });
    assert.equal(await o.page.textContent('#status'), 'Waiting for a heap map from fixture.Sample…');
    const msg = 'fixture.Sample is a plain JVM without DDM: the DDM heap map needs an Android VM (or the simulated DDM VM).';
    await o.post({ type: 'noDdm', message: msg });
    await o.page.waitForSelector('#status.no-ddm');
    assert.equal(await o.page.textContent('#status'), msg);
    await o.page.click('#dump-heap');
    assert.deepEqual((await o.posted()).at(-1), { type: 'dumpHeap' });
    // Another VM: the note goes with the old one.
    await o.post({ type: 'vm', vm: { id: '4', name: 'com.example.app', source: 'backend' } });
    await o.page.waitForSelector('#status:not(.no-ddm)'); // the message is handled after post returns
    assert.equal(await o.page.textContent('#status'), 'Waiting for a heap map from com.example.app…');
    assert.deepEqual(o.problems, []);
    await o.page.close();
  });
});
