import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseDapAddress } from '../../src/backend/api';
import { decodeHeapInfo, heapUsePercent } from '../../src/heap/heapinfo';
import { contentSecurityPolicy, makeNonce, webviewHtml } from '../../src/webview/html';

describe('decodeHeapInfo', () => {
  const h = { heapId: 1, maxBytes: 64 << 20, sizeBytes: 8 << 20, allocatedBytes: 2 << 20, allocatedObjects: 1234, timestamp: 1700000000000 };
  test('array, {heaps}, map keyed by id, single object', () => {
    assert.deepEqual(decodeHeapInfo([h]), [h]);
    assert.deepEqual(decodeHeapInfo({ heaps: [h] }), [h]);
    const { heapId: _omit, ...noId } = h;
    assert.deepEqual(decodeHeapInfo({ heaps: { '1': noId } }), [h]);
    assert.deepEqual(decodeHeapInfo(h), [h]);
    assert.deepEqual(decodeHeapInfo({ 1: { HeapID: 1, MaxBytes: 10, SizeBytes: 8, AllocatedBytes: 4, AllocatedObjects: 2 } })[0].allocatedBytes, 4);
    assert.deepEqual(decodeHeapInfo('x'), []);
    assert.equal(heapUsePercent(h), 25);
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
