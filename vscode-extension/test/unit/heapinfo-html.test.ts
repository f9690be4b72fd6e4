import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { parseDapAddress } from '../../src/backend/api';
import { decodeHeapInfo, dumpSourceText, HeapInfoError, heapUsePercent } from '../../src/heap/heapinfo';
import { extRoot } from '../support/fixtures';
import { contentSecurityPolicy, makeNonce, webviewHtml } from '../../src/webview/html';

describe('decodeHeapInfo', () => {
  const h = { heapId: 1, timestampMs: 1700000000000, reason: 1, maxBytes: 64 << 20, sizeBytes: 8 << 20, allocatedBytes: 2 << 20, allocatedObjects: 1234 };
  test('reads ddm.HeapInfoJSON as sent', () => {
    assert.deepEqual(decodeHeapInfo({ id: '1', heaps: [h] }), { id: '1', heaps: [h] });
    assert.deepEqual(decodeHeapInfo({ id: '1', heaps: [] }).heaps, []);
    assert.equal(heapUsePercent(h), 25);
    const rec = JSON.parse(fs.readFileSync(path.join(extRoot, 'test', 'fixtures', 'ddm-recording.json'), 'utf8')) as { heapInfo: unknown };
    assert.equal(decodeHeapInfo(rec.heapInfo).heaps[0].heapId, 1);
    // From a heap dump (current Android, HotSpot): the source, the dump's time and why.
    const dumped = decodeHeapInfo({ id: '1', heaps: [h], source: 'dump', dumpedAt: '2026-12-04T04:15:41Z', note: 'no heap reports' });
    assert.deepEqual(dumped, { id: '1', heaps: [h], source: 'dump', dumpedAt: '2026-12-04T04:15:41Z', note: 'no heap reports' });
    assert.match(dumpSourceText(dumped), /^From a heap dump taken at \d\d:\d\d:\d\d \(no heap reports\)$/);
    assert.equal(dumpSourceText({}), '');
  });

  test('other shapes and spellings are rejected with the field named', () => {
    const { timestampMs: _t, ...noTime } = h;
    const cases: [unknown, RegExp][] = [
      [[h], /^heap info: body: expected an object, got an array$/],
      [h, /^heap info: "heapId": unknown field \(expected id, heaps, source, dumpedAt, note\)$/],
      [{ id: '1', heaps: { '1': h } }, /^heap info: heaps: expected an array/],
      [{ id: '1', heapInfo: [h] }, /^heap info: "heapInfo": unknown field/],
      [{ id: '1', heaps: [{ ...noTime, timestamp: 1 }] }, /^heap info: heaps\[0\]\."timestamp": unknown field/],
      [{ id: '1', heaps: [noTime] }, /^heap info: heaps\[0\]\.timestampMs: missing$/],
      [{ id: '1', heaps: [{ ...h, MaxBytes: 1 }] }, /^heap info: heaps\[0\]\."MaxBytes": unknown field/],
      [{ id: '1', heaps: [{ ...h, sizeBytes: -1 }] }, /^heap info: heaps\[0\]\.sizeBytes: expected a non-negative integer, got -1$/],
      [{ heaps: [h] }, /^heap info: id: missing$/],
      [{ id: '1', heaps: [h], source: 'ddm' }, /^heap info: source: "ddm" is not "dump"$/],
      ['x', /^heap info: body: expected an object, got "x"$/],
    ];
    for (const [body, want] of cases) {
      assert.throws(() => decodeHeapInfo(body), (e: Error) => e instanceof HeapInfoError && want.test(e.message));
    }
  });
});

describe('webview HTML', () => {
  test('a strict CSP: nothing but the nonce script and the extension resources', () => {
    const nonce = makeNonce();
    assert.match(nonce, /^[A-Za-z0-9]{32}$/);
    const csp = contentSecurityPolicy('https://res.example', nonce);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, new RegExp(`script-src 'nonce-${nonce}'`));
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:\/\/(?!res\.example)/);
    const html = webviewHtml({ title: 'Heap <map>', cspSource: 'https://res.example', nonce, scriptUri: 'https://res.example/h.js', styleUri: 'https://res.example/w.css', view: 'heap' });
    assert.match(html, /<script nonce="[A-Za-z0-9]{32}" src="https:\/\/res.example\/h.js"><\/script>/);
    assert.match(html, /<title>Heap &lt;map&gt;<\/title>/);
    assert.doesNotMatch(html, /\sstyle=|\son\w+=/);
    assert.equal((html.match(/<script/g) ?? []).length, 1);
  });
});

describe('dap/address', () => {
  test('unix sockets, loopback TCP, and nothing', () => {
    assert.deepEqual(parseDapAddress({ address: 'unix:/run/user/1000/dap-4242.sock' }), { kind: 'pipe', path: '/run/user/1000/dap-4242.sock' });
    assert.deepEqual(parseDapAddress({ address: 'tcp:127.0.0.1:4711' }), { kind: 'tcp', host: '127.0.0.1', port: 4711 });
    assert.deepEqual(parseDapAddress('tcp:[::1]:4711'), { kind: 'tcp', host: '::1', port: 4711 });
    assert.deepEqual(parseDapAddress('/tmp/x.sock'), { kind: 'pipe', path: '/tmp/x.sock' });
    assert.equal(parseDapAddress({ address: '' }), undefined);
    assert.equal(parseDapAddress(null), undefined);
    assert.equal(parseDapAddress({ address: 'unix:' }), undefined);
  });
});
