import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HprofRequests } from '../../src/heap/hprofRequests';

const canceled = 'hprof: /d.hprof: the dominator tree stopped: context canceled';

describe('the HPROF editor\'s requests and the user\'s Cancel', () => {
  test('a request the Cancel reached stays stopped whatever else is asked meanwhile', () => {
    const q = new HprofRequests();
    const retained = q.start();
    const tree = q.start();
    const answered = q.cancel();
    // Unrelated messages meanwhile: a tab, a histogram row's paths.
    const heapMap = q.start();
    const paths = q.start();
    answered();
    const later = q.start(); // after the backend answered the cancel
    assert.equal(q.pending, 5);
    assert.ok(q.stopped(retained, canceled), 'in flight at the Cancel: stopped');
    assert.ok(q.stopped(tree, canceled));
    assert.ok(q.stopped(heapMap, canceled), 'started before the backend answered the cancel: it may have joined the work stopped');
    assert.ok(q.stopped(paths, canceled));
    assert.ok(!q.stopped(later, canceled), 'started after: the user started it again, its failure is an error');
    assert.ok(!q.stopped(retained, 'hprof: /d.hprof: not an HPROF file'), 'another failure is an error');
    for (const r of [retained, tree, heapMap, paths, later]) {
      q.end(r);
    }
    assert.equal(q.pending, 0);
  });

  test('started again after a Cancel, a request is not stopped until the next Cancel', () => {
    const q = new HprofRequests();
    const first = q.start();
    q.cancel()();
    q.end(first);
    const again = q.start(); // Compute retained sizes
    assert.ok(!q.stopped(again, canceled));
    const answered = q.cancel();
    answered();
    answered(); // once only
    assert.ok(q.stopped(again, canceled));
    assert.ok(!q.stopped(q.start(), canceled), 'the cancel answered once: later requests are not reached');
  });
});
