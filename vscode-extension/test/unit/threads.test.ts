import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { decodeThreads, formatCpu, historyLength, stateClass, stateColors, stateSummary, threadStateNames, ThreadsError, ThreadTracker } from '../../src/threads/threads';
import { extRoot } from '../support/fixtures';

describe('decodeThreads', () => {
  test('reads ddm.ThreadsJSON as sent', () => {
    const l = decodeThreads({
      id: 'vm1',
      threads: [
        { id: 1, name: 'main', state: 'running', suspended: false, tid: 4242, utime: 150, stime: 20 },
        { id: 2, name: '', state: 'monitor', suspended: false, daemon: true },
        { id: 3, name: 'worker', state: 'wait', suspended: true },
        { id: 4, name: 'new', state: 'unknown', suspended: false },
      ],
    });
    assert.equal(l.id, 'vm1');
    assert.equal(l.note, undefined);
    assert.equal(l.threads.length, 4);
    assert.deepEqual(l.threads[0], { id: 1, name: 'main', state: 'running', suspended: false, tid: 4242, utime: 150, stime: 20 });
    assert.deepEqual(l.threads[1], { id: 2, name: '', state: 'monitor', suspended: false, daemon: true });
    assert.equal(l.threads[2].suspended, true);
    assert.equal(l.threads[3].state, 'unknown');
    assert.equal(stateClass('unknown'), 'other');
    assert.deepEqual(decodeThreads({ id: '2', threads: [], note: 'no THST' }), { id: '2', threads: [], note: 'no THST' });
  });

  test('the states are ddm.ThreadStateNames()', () => {
    assert.deepEqual(threadStateNames, ['zombie', 'running', 'timed-wait', 'monitor', 'wait', 'initializing', 'starting', 'native', 'vmwait', 'suspended', 'unknown']);
  });

  test('the recording decodes', () => {
    const rec = JSON.parse(fs.readFileSync(path.join(extRoot, 'test', 'fixtures', 'ddm-recording.json'), 'utf8')) as { threads: unknown[] };
    for (const snap of rec.threads) {
      assert.ok(decodeThreads(snap).threads.length > 0);
    }
  });

  test('a state number, an unknown state name or an old field is rejected with the field named', () => {
    const one = (t: unknown): unknown => ({ id: 'vm1', threads: [{ id: 1, name: 'main', state: 'running', suspended: false }, t] });
    const cases: [unknown, RegExp][] = [
      [one({ id: 2, name: 'b', state: 3, suspended: false }), /^threads: threads\[1\]\.state: 3 is not one of zombie, running, timed-wait, monitor, wait, initializing, starting, native, vmwait, suspended, unknown$/],
      [one({ id: 2, name: 'b', state: 'sleeping', suspended: false }), /^threads: threads\[1\]\.state: "sleeping" is not one of zombie, /],
      [one({ id: 2, name: 'b', state: 'RUNNING', suspended: false }), /^threads: threads\[1\]\.state: "RUNNING" is not one of/],
      [one({ id: 2, name: 'b', status: 'running', suspended: false }), /^threads: threads\[1\]\."status": unknown field/],
      [one({ threadId: 2, name: 'b', state: 'running', suspended: false }), /^threads: threads\[1\]\."threadId": unknown field/],
      [one({ id: 2, state: 'running', suspended: false }), /^threads: threads\[1\]\.name: missing$/],
      [one({ id: 2, name: 'b', state: 'running' }), /^threads: threads\[1\]\.suspended: missing$/],
      [one({ id: 2, name: 'b', state: 'running', suspended: false, tid: '12' }), /^threads: threads\[1\]\.tid: expected a non-negative integer, got "12"$/],
      [one('garbage'), /^threads: threads\[1\]: expected an object, got "garbage"$/],
      [[{ id: 7, name: 'a', state: 'running', suspended: false }], /^threads: body: expected an object, got an array$/],
      [{ threads: [] }, /^threads: id: missing$/],
      [undefined, /^threads: body: expected an object, got nothing$/],
    ];
    for (const [body, want] of cases) {
      assert.throws(() => decodeThreads(body), (e: Error) => {
        assert.ok(e instanceof ThreadsError, e.name);
        assert.match(e.message, want);
        return true;
      });
    }
  });
});

describe('states', () => {
  test('classes and colours', () => {
    assert.equal(stateClass('running'), 'running');
    assert.equal(stateClass('timed-wait'), 'waiting');
    assert.equal(stateClass('vmwait'), 'waiting');
    assert.equal(stateClass('monitor'), 'blocked');
    assert.equal(stateClass('native'), 'native');
    assert.equal(stateClass('zombie'), 'dead');
    assert.equal(stateClass('running', true), 'suspended');
    assert.equal(stateClass('what'), 'other');
    assert.notEqual(stateColors.running, stateColors.blocked);
    assert.deepEqual(stateSummary([{ stateClass: 'running' }, { stateClass: 'running' }, { stateClass: 'waiting' }]), {
      running: 2,
      waiting: 1,
    });
  });

  test('CPU times in clock ticks', () => {
    assert.equal(formatCpu(undefined), '—');
    assert.equal(formatCpu(150), '1.50s');
    assert.equal(formatCpu(100 * 125), '2m05s');
  });
});

describe('ThreadTracker (blinkenlights)', () => {
  test('lights a lamp by CPU used since the previous update', () => {
    const tr = new ThreadTracker();
    let rows = tr.update([
      { id: 1, name: 'busy', state: 'running', suspended: false, daemon: false, utime: 100, stime: 0 },
      { id: 2, name: 'idle', state: 'wait', suspended: false, daemon: false, utime: 5, stime: 5 },
    ]);
    assert.equal(rows[0].isNew, true);
    assert.equal(rows[0].cpuDelta, undefined);
    assert.equal(rows[0].lights.length, historyLength);
    rows = tr.update([
      { id: 1, name: 'busy', state: 'running', suspended: false, daemon: false, utime: 140, stime: 0 },
      { id: 2, name: 'idle', state: 'wait', suspended: false, daemon: false, utime: 5, stime: 5 },
      { id: 3, name: 'new', state: 'starting', suspended: false, daemon: false },
    ]);
    assert.equal(rows[0].isNew, false);
    assert.equal(rows[0].cpuDelta, 40);
    assert.equal(rows[0].lights.at(-1), 1);
    assert.equal(rows[1].cpuDelta, 0);
    assert.equal(rows[1].lights.at(-1), 0);
    assert.equal(rows[2].isNew, true);
    rows = tr.update([{ id: 1, name: 'busy', state: 'running', suspended: false, daemon: false, utime: 150, stime: 10 }]);
    assert.equal(rows[0].lights.at(-1), 1);
    assert.deepEqual(rows[0].lights.slice(-4), [0, 0, 1, 1]); // first update: no delta yet, dark
  });

  test('without CPU times no lamp is lit: a "running" state is no measure of activity', () => {
    const tr = new ThreadTracker();
    for (let i = 0; i < 3; i++) {
      const rows = tr.update([
        { id: 1, name: 'Signal Dispatcher', state: 'running', suspended: false, daemon: false },
        { id: 2, name: 'b', state: 'wait', suspended: false, daemon: false },
      ]);
      assert.equal(rows[0].lights.at(-1), 0);
      assert.equal(rows[1].lights.at(-1), 0);
    }
  });

  test('a thread a debugger holds is shown suspended, its lamp dark, whatever its state and CPU', () => {
    const tr = new ThreadTracker();
    tr.update([{ id: 1, name: 'main', state: 'running', suspended: false, daemon: false, utime: 100, stime: 0 }]);
    const [row] = tr.update([{ id: 1, name: 'main', state: 'running', suspended: true, daemon: false, utime: 130, stime: 0 }]);
    assert.equal(row.stateClass, 'suspended');
    assert.equal(row.lights[row.lights.length - 1], 0);
  });
});
