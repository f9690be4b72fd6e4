// The webviews rendered in headless Chromium from recorded DDM data (see
// scripts/record-ddm.mjs), with the same HTML, CSP and scripts VS Code
// loads. Screenshots are decoded and checked pixel by pixel.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  base64Encode,
  Block,
  blockColor,
  decodeHeapMap,
  encodeRuns,
  formatAddress,
  freeColor,
  gapColor,
  hitTest,
  kindColors,
  kindNames,
  layout,
} from '../../src/heap/heapmap';
import { stateClass, stateColors } from '../../src/threads/threads';
import { makeNonce, webviewHtml } from '../../src/webview/html';
import type { ToWebview } from '../../src/webview/messages';
import { launchChromium, serveStatic, StaticServer, vscodeStub } from '../support/browser';
import { extRoot } from '../support/fixtures';
import { countColor, decodePng, Image, pixel } from '../support/png';

interface Recording {
  vm: { id: string; name: string };
  threads: { id: string; threads: { id: number; name: string; state: string }[] }[];
  heapInfo: { heaps: { heapId: number; sizeBytes: number }[] };
  heapMap: { pieces: { unitSize: number }[]; totals: { bytes: number; freeBytes: number; byKind: Record<string, number> } };
}

const rec = JSON.parse(fs.readFileSync(path.join(extRoot, 'test', 'fixtures', 'ddm-recording.json'), 'utf8')) as Recording;
const shots = path.join(extRoot, 'test-results');

let browser: Browser;
let server: StaticServer;

before(async () => {
  fs.mkdirSync(shots, { recursive: true });
  server = await serveStatic(extRoot);
  for (const view of ['heap', 'threads'] as const) {
    server.page(
      `/${view}.html`,
      webviewHtml({
        title: view,
        cspSource: server.origin,
        nonce: makeNonce(),
        scriptUri: `${server.origin}/out/webview/${view === 'heap' ? 'heapView' : 'threadsView'}.js`,
        styleUri: `${server.origin}/media/webview.css`,
        view,
      }),
    );
  }
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

interface Opened {
  page: Page;
  problems: string[];
  post(m: ToWebview): Promise<void>;
  posted(): Promise<{ type: string }[]>;
  shot(selector: string, name: string): Promise<Image>;
}

async function open(view: 'heap' | 'threads'): Promise<Opened> {
  const page = await browser.newPage({ viewport: { width: 1100, height: 1000 }, deviceScaleFactor: 1 });
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') {
      problems.push(`console ${m.type()}: ${m.text()}`);
    }
  });
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
  await page.addInitScript(vscodeStub);
  await page.goto(`${server.origin}/${view}.html`);
  await page.waitForFunction(() => (window as unknown as { __posted: { type: string }[] }).__posted.some((m) => m.type === 'ready'));
  return {
    page,
    problems,
    post: (m) => page.evaluate((msg) => window.postMessage(msg, '*'), m),
    posted: () => page.evaluate(() => (window as unknown as { __posted: { type: string }[] }).__posted),
    shot: async (selector, name) => {
      const buf = await page.locator(selector).screenshot({ path: path.join(shots, `${name}.png`), animations: 'disabled' });
      return decodePng(buf);
    },
  };
}

async function noProblems(o: Opened): Promise<void> {
  const csp = await o.page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations);
  assert.deepEqual(csp, [], 'no Content-Security-Policy violations');
  assert.deepEqual(o.problems, [], 'no errors in the page');
}

describe('heap map webview', () => {
  test('draws the recorded heap map in DDMS colours, with legend, totals and heap info', async () => {
    const o = await open('heap');
    await o.post({ type: 'vm', vm: { id: rec.vm.id, name: rec.vm.name, source: 'recording' } });
    await o.post({ type: 'heapInfo', body: rec.heapInfo });
    await o.post({ type: 'heapMap', body: rec.heapMap });
    await o.page.waitForSelector('#totals tr[data-kind]');

    assert.equal(await o.page.textContent('#vm-title'), `Heap of ${rec.vm.name}`);
    // Legend: every kind, free space and the expansion area, with DDMS's wording.
    const legend = await o.page.textContent('#legend');
    for (const name of [...kindNames, 'free', 'heap expansion area', 'byte[], boolean[]', 'long[], double[]']) {
      assert.ok(legend?.includes(name), `legend shows "${name}"`);
    }
    // Totals per kind agree with the backend's own totals.
    for (const [name, bytes] of Object.entries(rec.heapMap.totals.byKind)) {
      const k = kindNames.indexOf(name);
      assert.equal(await o.page.getAttribute(`#totals tr[data-kind="${k}"] td[data-bytes]`, 'data-bytes'), String(bytes), `${name} bytes`);
    }
    assert.equal(await o.page.getAttribute('#totals tr[data-kind="free"] td[data-bytes]', 'data-bytes'), String(rec.heapMap.totals.freeBytes));
    const info = await o.page.textContent('#heap-info');
    assert.match(info ?? '', /512 KiB/, 'heap size from HPIF');
    assert.match((await o.page.textContent('#status')) ?? '', /Heap 1: 1 piece\(s\)/);

    // The bitmap: each kind present shows up in its colour, in proportion to its size.
    const canvas = o.page.locator('#heap-canvas');
    const scale = Number(await canvas.getAttribute('data-scale'));
    const upp = Number(await canvas.getAttribute('data-upp'));
    assert.equal(upp, 1);
    const img = await o.shot('#heap-canvas', 'heap-recorded-canvas');
    const unit = rec.heapMap.pieces[0].unitSize;
    for (const [name, bytes] of Object.entries(rec.heapMap.totals.byKind)) {
      const px = countColor(img, blockColor(kindNames.indexOf(name), 1));
      const expected = (bytes / unit) * scale * scale;
      assert.ok(Math.abs(px - expected) <= expected * 0.05 + 2 * scale, `${name}: ${px} pixels of ${blockColor(kindNames.indexOf(name), 1)}, expected about ${expected}`);
    }
    const free = countColor(img, freeColor);
    const freeExpected = (rec.heapMap.totals.freeBytes / unit) * scale * scale;
    assert.ok(Math.abs(free - freeExpected) <= freeExpected * 0.05, `free: ${free} black pixels, expected about ${freeExpected}`);
    assert.ok(countColor(img, gapColor) > 0, 'the row after the end of the heap is expansion-area grey');
    await o.shot('body', 'heap-recorded-page');

    // Hover: the address and block under the pointer.
    const map = decodeHeapMap(rec.heapMap);
    const lay = layout(map, { width: 256, unitsPerPixel: upp });
    let target: { x: number; y: number } | undefined;
    for (let i = 0; i < 256 * lay.rows && !target; i++) {
      const h = hitTest(lay, i % 256, Math.floor(i / 256));
      if (h?.block?.kind === 1) {
        target = { x: i % 256, y: Math.floor(i / 256) };
      }
    }
    assert.ok(target, 'the recording has a class object');
    const box = (await canvas.boundingBox())!;
    await o.page.mouse.move(box.x + (target.x + 0.5) * scale, box.y + (target.y + 0.5) * scale);
    const hit = hitTest(lay, target.x, target.y)!;
    const hover = await o.page.textContent('#hover');
    assert.equal(hover, `${formatAddress(hit.address)} — class (hard), ${hit.block!.units * unit} B at ${formatAddress(hit.blockStart!)}`);

    // Zoom in doubles the drawn size; Fit goes back.
    const w0 = (await canvas.boundingBox())!.width;
    await o.page.click('#zoom-in');
    const w1 = (await canvas.boundingBox())!.width;
    assert.equal(w1, scale < 8 ? w0 * 2 : w0);
    await o.page.click('#zoom-out');
    await o.page.click('#zoom-out');
    assert.equal((await canvas.boundingBox())!.width, scale > 1 ? w0 / 2 : w0);
    await o.page.click('#zoom-fit');
    assert.equal((await canvas.boundingBox())!.width, w0);

    // Buttons talk to the extension.
    await o.page.click('#gc');
    await o.page.click('#refresh');
    const types = (await o.posted()).map((m) => m.type);
    assert.deepEqual(types.slice(-2), ['gc', 'refresh']);
    await noProblems(o);
    await o.page.close();
  });

  test('every kind and paler weaker reachability, zoomed out on a large heap', async () => {
    const o = await open('heap');
    // A synthetic 4 MiB heap: runs of every kind, hard and weaker, and free gaps.
    const blocks: Block[] = [];
    for (let i = 0; i < 64; i++) {
      for (let k = 0; k < 8; k++) {
        blocks.push({ kind: k, solidity: 1, units: 600 + 37 * k });
        blocks.push({ kind: k, solidity: 3, units: 300 });
        blocks.push({ kind: 0, solidity: 0, units: 100 });
      }
    }
    const units = blocks.reduce((s, b) => s + b.units, 0);
    const body = {
      id: 'synthetic',
      heapId: 1,
      pieces: [
        { start: 0x12c00000, unitSize: 8, units, runs: base64Encode(encodeRuns(blocks)) },
        { start: 0x13c00000, unitSize: 8, units: 2, runs: base64Encode(encodeRuns([{ kind: 7, solidity: 1, units: 2 }])) },
      ],
    };
    await o.post({ type: 'vm', vm: { id: 'synthetic', name: 'synthetic', source: 'recording' } });
    await o.post({ type: 'heapMap', body });
    await o.page.waitForSelector('#totals tr[data-kind="7"]');
    const canvas = o.page.locator('#heap-canvas');
    const upp = Number(await canvas.getAttribute('data-upp'));
    assert.ok(upp > 1, `a large heap is zoomed out to fit (units per pixel ${upp})`);
    assert.match((await o.page.textContent('#zoom-level')) ?? '', new RegExp(`1 px = ${upp * 8} B`));
    const img = await o.shot('#heap-canvas', 'heap-synthetic-canvas');
    for (let k = 0; k < 8; k++) {
      assert.ok(countColor(img, kindColors[k]) > 0, `${kindNames[k]} drawn in ${kindColors[k]}`);
      assert.ok(countColor(img, blockColor(k, 3)) > 0, `weak ${kindNames[k]} drawn paler, ${blockColor(k, 3)}`);
    }
    assert.ok(countColor(img, freeColor) > 0, 'free space black');
    assert.ok(countColor(img, gapColor) > 0, 'the gap between the pieces grey');
    // The legend's swatches are the same colours.
    const leg = await o.shot('#legend', 'heap-legend');
    for (const c of [...kindColors, freeColor, gapColor]) {
      assert.ok(countColor(leg, c) >= 100, `legend swatch ${c}`);
    }
    // One row per kind in the totals, the biggest first in DDMS's order (by kind).
    assert.equal(await o.page.locator('#totals tr[data-kind]').count(), 9);
    await o.shot('body', 'heap-synthetic-page');
    await noProblems(o);
    await o.page.close();
  });

  test('a corrupt heap map is reported, not drawn', async () => {
    const o = await open('heap');
    await o.post({ type: 'vm', vm: { id: 'x', name: 'x', source: 'recording' } });
    await o.post({ type: 'heapMap', body: { heapId: 1, pieces: [{ start: 0, unitSize: 8, runs: base64Encode(Uint8Array.from([0x09])) }] } });
    await o.page.waitForSelector('#status.error');
    assert.equal(await o.page.textContent('#status'), 'Cannot read the heap map: heap map: run list of odd length 1');
    await o.post({ type: 'error', message: 'vm/heapInfo: VM 2 is not DDM-aware' });
    assert.equal(await o.page.textContent('#status'), 'vm/heapInfo: VM 2 is not DDM-aware');
    await noProblems(o);
    await o.page.close();
  });
});

describe('threads webview', () => {
  test('live thread table from recorded updates: state colours, CPU times, activity lights', async () => {
    const o = await open('threads');
    await o.post({ type: 'vm', vm: { id: rec.vm.id, name: rec.vm.name, source: 'recording' } });
    for (const snap of rec.threads) {
      await o.post({ type: 'threads', body: snap });
    }
    const last = rec.threads[rec.threads.length - 1].threads;
    await o.page.waitForSelector('#threads tr[data-thread]');
    assert.equal(await o.page.textContent('#vm-title'), `Threads of ${rec.vm.name}`);
    assert.equal(await o.page.locator('#threads tr[data-thread]').count(), last.length);
    for (const t of last) {
      const row = o.page.locator(`#threads tr[data-thread="${t.id}"]`);
      assert.match((await row.textContent()) ?? '', new RegExp(t.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
      const st = row.locator('.state');
      assert.equal(await st.getAttribute('data-state'), stateClass(t.state));
    }
    // Lights: the recording's threads used CPU between updates.
    const lit = await o.page.locator('.lamp.on').count();
    assert.ok(lit > 0, 'some activity lamps are lit');
    assert.equal(await o.page.locator('#threads tr[data-thread]').first().locator('.lamp').count(), 16);

    // The screenshot shows each state's colour in the state column.
    const img = await o.shot('#threads', 'threads-recorded');
    const tbox = (await o.page.locator('#threads').boundingBox())!;
    for (const t of last) {
      const cell = (await o.page.locator(`#threads tr[data-thread="${t.id}"] .state`).boundingBox())!;
      const want = stateColors[stateClass(t.state)];
      const rgb = [1, 3, 5].map((i) => parseInt(want.slice(i, i + 2), 16));
      const got = pixel(img, Math.round(cell.x - tbox.x + 2), Math.round(cell.y - tbox.y + 2));
      assert.deepEqual(got, rgb, `${t.name} (${t.state}) drawn in ${want}`);
    }
    const summary = (await o.page.textContent('#summary')) ?? '';
    assert.match(summary, /\d+ (running|waiting)/);
    await o.shot('body', 'threads-recorded-page');
    await o.page.click('#refresh');
    assert.equal((await o.posted()).at(-1)?.type, 'refresh');
    await noProblems(o);
    await o.page.close();
  });
});
