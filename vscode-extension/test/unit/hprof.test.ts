import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import {
  classFilter,
  decodeDiff,
  decodeDominators,
  decodeIncoming,
  decodeInstances,
  decodePath,
  decodePaths,
  decodeProgress,
  decodeRetained,
  decodeSummary,
  HprofDataError,
  objectId,
  PathNode,
  signed,
  sumRows,
  viewRows,
} from '../../src/heap/hprof';
import { extRoot } from '../support/fixtures';

// Written by Go from the schema's types for a sample dump
// (ddm/hprof/extfixtures_test.go): what the backend and the CLI answer.
const fx = JSON.parse(fs.readFileSync(path.join(extRoot, 'test', 'fixtures', 'hprof-results.json'), 'utf8')) as Record<
  'summary' | 'dominators' | 'drill' | 'diff' | 'path' | 'elided' | 'paths' | 'chainPaths' | 'incoming' | 'instances' | 'retained' | 'dump',
  Record<string, unknown>
>;
const summary = fx.summary;

function without(o: Record<string, unknown>, k: string): Record<string, unknown> {
  const c = { ...o };
  delete c[k];
  return c;
}

describe('hprof results', () => {
  test('the Go fixtures decode: summary, dominators, diff and paths', () => {
    const s = decodeSummary(fx.summary);
    assert.equal(s.format, 'JAVA PROFILE 1.0.2');
    assert.deepEqual(s.heaps, ['default']);
    assert.equal(s.totals.instances, s.objects);
    assert.deepEqual(sumRows(s.classes), { instances: s.totals.instances, bytes: s.totals.bytes });

    const top = decodeDominators(fx.dominators);
    assert.equal(top.object, undefined);
    assert.equal(top.children.length, 3);
    assert.ok(top.more > 0);
    assert.ok(
      top.children.some((c) => c.class === 'class Holder'),
      'a class object is named after its class',
    );
    const drill = decodeDominators(fx.drill);
    assert.equal(drill.object?.class, 'Holder');
    assert.equal(drill.object?.children, drill.children.length);

    const diff = decodeDiff(fx.diff);
    assert.ok(diff.classes.length > 0);
    assert.equal(diff.more, 0);
    assert.equal(diff.totals.new.instances, s.totals.instances);

    const p = decodePath(fx.path);
    assert.equal(p.length, p.steps.length);
    assert.ok(p.steps[0].root, 'the first step names its root kind');
    assert.equal(p.steps.at(-1)?.id, p.object);
    const e = decodePath(fx.elided);
    assert.equal(e.length, p.length);
    assert.equal(e.steps.length + (e.elided?.count ?? 0), e.length);
    assert.deepEqual(e.steps.at(-1), p.steps.at(-1));
    // A real dump's root says its thread and frame; an implicit edge says what it is.
    const detailed = decodePath({ ...fx.path, steps: [{ ...p.steps[0], rootDetail: 'thread 0x1 (java.lang.Thread, serial 1), frame 2: Leak.main(Leak.java:45)' }, ...p.steps.slice(1, -1), { ...(fx.path.steps as Record<string, unknown>[]).at(-1), via: '<class>' }] });
    assert.match(detailed.steps[0].rootDetail ?? '', /Leak\.main/);
    assert.equal(detailed.steps.at(-1)?.via, '<class>');
    // Each step past the root names the field or element that holds it (read back from the dump).
    assert.equal(p.steps[0].field, undefined, 'a root is held by no field');
    assert.deepEqual(
      p.steps.slice(1).map((s) => s.field),
      ['next', '[0]', 'value'],
    );
    const twice = decodePath({ ...fx.path, steps: [...(fx.path.steps as Record<string, unknown>[]).slice(0, -1), { ...(fx.path.steps as Record<string, unknown>[]).at(-1), fieldCount: 2 }] });
    assert.equal(twice.steps.at(-1)?.fieldCount, 2);
  });

  test('malformed answers are refused with the field named', () => {
    const bad = (f: () => unknown, re: RegExp): void => assert.throws(f, (e: Error) => e instanceof HprofDataError && re.test(e.message));
    // A streamed summary (hprof/summary "stream") says so; the model's leaves it out.
    assert.equal(decodeSummary(summary).streamed, false);
    assert.equal(decodeSummary({ ...summary, streamed: true }).streamed, true);
    bad(() => decodeSummary({ ...summary, streamed: 1 }), /hprof\/summary\.streamed: expected a boolean/);
    // hprof/progress notifications.
    assert.deepEqual(decodeProgress({ path: '/d.hprof', phase: 'parsing', read: 5, size: 10 }), { path: '/d.hprof', phase: 'parsing', read: 5, size: 10 });
    bad(() => decodeProgress({ path: '/d.hprof', phase: 'sleeping', read: 5, size: 10 }), /hprof\/progress\.phase: "sleeping" is not one of/);
    bad(() => decodeProgress({ path: '/d.hprof', phase: 'parsing', read: -1, size: 10 }), /hprof\/progress\.read: expected a non-negative integer/);
    bad(() => decodeSummary({ ...summary, classes: [{ class: 'x', instances: '1', bytes: 2 }] }), /hprof\/summary\.classes\[0\]\.instances: expected a non-negative integer/);
    bad(() => decodeSummary([]), /hprof\/summary: expected an object, got an array/);
    bad(() => decodeSummary({ ...summary, extra: 1 }), /hprof\/summary\."extra": unknown field/);
    bad(() => decodeSummary(without(summary, 'roots')), /hprof\/summary\.roots: missing/);
    bad(() => decodeDominators({ ...fx.dominators, children: [{ id: 'x' }] }), /hprof\/dominators\.children\[0\]\.class: missing/);
    bad(() => decodeDominators({ ...fx.dominators, children: [{ id: 'x', class: 'A', size: 8, children: 0 }] }), /children\[0\]\.id: expected a non-negative integer/);
    bad(() => decodeDominators(without(fx.dominators, 'reachable')), /reachable: missing/);
    const row = { class: 'Item', instances: 15, bytes: 240, oldInstances: 10, oldBytes: 160, newInstances: 25, newBytes: 400 };
    assert.equal(decodeDiff({ ...fx.diff, classes: [row, { ...row, instances: -5, bytes: -80, newInstances: 5, newBytes: 80 }] }).classes[1].bytes, -80);
    bad(() => decodeDiff({ ...fx.diff, classes: [{ class: 'Item' }] }), /classes\[0\]\.instances: missing/);
    bad(() => decodeDiff({ ...fx.diff, classes: [{ ...row, bytes: 1 }] }), /the deltas are not new − old/);
    bad(() => decodePath({ ...fx.elided, length: 99 }), /length says 99/);
    bad(() => decodePath({ ...fx.path, steps: [{ id: 1, class: 'A', size: 8, depth: 3 }] }), /steps\[0\]\."depth": unknown field/);
    bad(() => decodePath({ ...fx.path, steps: [{ id: 1, class: 'A', size: 8, field: 3 }] }), /steps\[0\]\.field: expected a string/);
    bad(() => decodePath({ ...fx.path, steps: [{ id: 1, class: 'A', size: 8, field: '[1]', fieldCount: -2 }] }), /steps\[0\]\.fieldCount: expected a non-negative integer/);
  });

  test('the Go fixtures of why objects are alive decode: merged paths, incoming references, instances, retained sizes', () => {
    const p = decodePaths(fx.paths);
    assert.equal(p.target, 'java.lang.String');
    assert.equal(p.objects, 3);
    assert.equal(p.reached, 3);
    assert.equal(
      p.roots.reduce((n, r) => n + r.targets, 0),
      3,
      'the roots lead to every target',
    );
    assert.ok(p.roots.every((r) => r.root), 'every root names its kind');
    // A long chain keeps its ends; the nodes and the gap add up to the path.
    const c = decodePaths(fx.chainPaths);
    let shown = 0;
    let gap = 0;
    let last: PathNode | undefined;
    for (let n: PathNode | undefined = c.roots[0]; n; n = n.children[0]) {
      shown++;
      gap += n.elided?.count ?? 0;
      last = n;
    }
    assert.ok(gap > 0, 'the middle of the chain is elided');
    assert.equal(shown + gap, 31);
    assert.equal(last?.target, true);

    const inc = decodeIncoming(fx.incoming);
    assert.equal(inc.total, inc.referrers.length);
    assert.equal(inc.referrers[0].class, 'java.lang.Object[]');
    assert.equal(inc.referrers[0].field, '[0]', 'the referrer names the element that holds the object');
    assert.equal(p.roots[0].field, undefined);
    assert.ok(
      p.roots.some((r) => r.children.some((k) => k.field !== undefined)),
      'the steps below a root name their fields',
    );
    const inst = decodeInstances(fx.instances);
    assert.equal(inst.class, 'java.lang.String');
    assert.equal(inst.offset, 1);
    assert.ok(inst.objects.every((o) => o.retained >= o.size));
    const ret = decodeRetained(fx.retained);
    assert.ok(ret.classes.length > 0);

    const bad = (f: () => unknown, re: RegExp): void => assert.throws(f, (e: Error) => e instanceof HprofDataError && re.test(e.message));
    bad(() => decodePaths({ ...fx.paths, reached: 9 }), /9 of 3 objects reached/);
    const root = (fx.paths.roots as Record<string, unknown>[])[0];
    bad(() => decodePaths({ ...fx.paths, roots: [{ ...root, targets: 3 }] }), /roots\[0\]: 3 targets, its children and itself 2/);
    bad(() => decodePaths({ ...fx.paths, roots: [{ ...root, depth: 1 }] }), /roots\[0\]\."depth": unknown field/);
    bad(() => decodeIncoming({ ...fx.incoming, offset: 5 }), /1 referrers from 5 of 1/);
    bad(() => decodeIncoming({ ...fx.incoming, referrers: [{ ...(fx.incoming.referrers as Record<string, unknown>[])[0], fieldCount: 'x' }] }), /referrers\[0\]\.fieldCount/);
    bad(() => decodeInstances(without(fx.instances, 'objects')), /objects: missing/);
    bad(() => decodeRetained({ ...fx.retained, classes: [{ class: 'A', retained: 1 }, { class: 'B', retained: 2 }] }), /retains more than classes\[0\]/);

    // The histogram sorts by retained size where known (unknown counts as 0).
    const rows = [
      { class: 'A', instances: 1, bytes: 10, retained: 500 },
      { class: 'B', instances: 1, bytes: 90, retained: 100 },
      { class: 'C', instances: 1, bytes: 50 },
    ];
    assert.deepEqual(viewRows(rows, { sort: 'retained', descending: true, filter: '' }).map((r) => r.class), ['A', 'B', 'C']);
  });

  test('the histogram sorts by any column and filters by words or /regexp/', () => {
    const rows = decodeSummary({
      ...summary,
      classes: [
        { class: 'byte[]', instances: 2, bytes: 96 },
        { class: 'java.lang.String', instances: 3, bytes: 72 },
        { class: 'com.example.Node', instances: 1, bytes: 72 },
      ],
    }).classes;
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
