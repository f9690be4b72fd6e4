import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { classFilter, decodeDiff, decodeDominators, decodeSummary, HprofDataError, objectId, signed, sumRows, viewRows } from '../../src/heap/hprof';

// Shaped as the backend answers (bridge/rpc_hprof.go, docs/rpc.md).
const summary = {
  path: '/tmp/a.hprof',
  format: 'JAVA PROFILE 1.0.2',
  idSize: 8,
  objects: 6,
  classes: [
    { class: 'byte[]', instances: 2, bytes: 96 },
    { class: 'java.lang.String', instances: 3, bytes: 72 },
    { class: 'com.example.Node', instances: 1, bytes: 72 },
  ],
  totals: { classes: 3, instances: 6, bytes: 240 },
};

describe('hprof results', () => {
  test('summary, dominators and diff decode; malformed answers say what is wrong', () => {
    const s = decodeSummary(summary);
    assert.equal(s.classes.length, 3);
    assert.deepEqual(s.totals, { classes: 3, instances: 6, bytes: 240 });
    assert.throws(() => decodeSummary({ ...summary, classes: [{ class: 'x', instances: '1', bytes: 2 }] }), (e: Error) => e instanceof HprofDataError && /"instances" is not a number/.test(e.message));
    assert.throws(() => decodeSummary([]), /hprof\/summary: not an object/);

    const d = decodeDominators({
      path: '/tmp/a.hprof',
      object: { id: 0x10000, class: 'Holder', size: 16, retained: 200, children: 1 },
      children: [{ id: 0x10100, class: 'java.lang.Object[]', size: 120, retained: 184, children: 25 }],
      more: 0,
      reachable: 52,
      total: 1336,
    });
    assert.equal(d.object?.class, 'Holder');
    assert.equal(d.children[0].children, 25);
    const top = decodeDominators({ path: '/p', children: [], reachable: 0, total: 0 });
    assert.equal(top.object, undefined);
    assert.equal(top.more, 0);
    assert.throws(() => decodeDominators({ path: '/p', children: [{ id: 'x' }], reachable: 0, total: 0 }), /"id" is not a number/);

    const diff = decodeDiff({
      path: '/b',
      base: '/a',
      classes: [{ class: 'Item', instances: 15, bytes: 240, oldInstances: 10, oldBytes: 160, newInstances: 25, newBytes: 400 }],
    });
    assert.equal(diff.classes[0].newInstances, 25);
    assert.throws(() => decodeDiff({ path: '/b', base: '/a', classes: [{ class: 'Item' }] }), /"instances" is not a number/);
  });

  test('the histogram sorts by any column and filters by words or /regexp/', () => {
    const rows = decodeSummary(summary).classes;
    assert.deepEqual(
      viewRows(rows, { sort: 'bytes', descending: true, filter: '' }).map((r) => r.class),
      ['byte[]', 'com.example.Node', 'java.lang.String'],
      'ties by name',
    );
    assert.deepEqual(viewRows(rows, { sort: 'instances', descending: false, filter: '' }).map((r) => r.class), ['com.example.Node', 'byte[]', 'java.lang.String']);
    assert.deepEqual(viewRows(rows, { sort: 'class', descending: true, filter: '' }).map((r) => r.class), ['java.lang.String', 'com.example.Node', 'byte[]']);
    assert.deepEqual(viewRows(rows, { sort: 'bytes', descending: true, filter: 'JAVA string' }).map((r) => r.class), ['java.lang.String']);
    assert.deepEqual(viewRows(rows, { sort: 'bytes', descending: true, filter: '/\\[\\]$/' }).map((r) => r.class), ['byte[]']);
    assert.deepEqual(viewRows(rows, { sort: 'bytes', descending: true, filter: '/([/' }), [], 'a broken regexp matches nothing');
    assert.equal(rows.length, 3, 'the rows themselves are left alone');
    assert.deepEqual(sumRows(rows), { instances: 6, bytes: 240 });
    assert.equal(classFilter('  ')('anything'), true);
  });

  test('diff rows sort by the size of the change; signs and ids print as the CLI does', () => {
    const rows = [
      { class: 'A', instances: -5, bytes: -500 },
      { class: 'B', instances: 3, bytes: 90 },
      { class: 'C', instances: 1, bytes: 800 },
    ];
    assert.deepEqual(viewRows(rows, { sort: 'bytes', descending: true, filter: '' }).map((r) => r.class), ['C', 'A', 'B']);
    assert.deepEqual(viewRows(rows, { sort: 'instances', descending: true, filter: '' }).map((r) => r.class), ['A', 'B', 'C']);
    assert.equal(signed(1234), '+1,234');
    assert.equal(signed(-56), '−56');
    assert.equal(signed(0), '0');
    assert.equal(objectId(0x7ff0a1b8), '0x7ff0a1b8');
  });
});
