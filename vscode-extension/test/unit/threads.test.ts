import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeThreads, formatCpu, historyLength, stateClass, stateColors, stateSummary, ThreadTracker } from '../../src/threads/threads';

describe('decodeThreads', () => {
  test('reads the backend thread objects and DDM state numbers', () => {
    const t = decodeThreads({
      id: 'vm1',
      threads: [
        { id: 1, name: 'main', state: 'running', tid: 4242, utime: 150, stime: 20 },
        { id: 2, name: '', state: 3, daemon: true },
        { id: 3, name: 'worker', state: 'wait', suspended: true },
        { name: 'no id' },
        'garbage',
      ],
    });
    assert.equal(t.length, 3);
    assert.deepEqual(t[0], { id: 1, name: 'main', state: 'running', suspended: false, daemon: false, tid: 4242, utime: 150, stime: 20 });
    assert.equal(t[1].name, 'Thread 2');
    assert.equal(t[1].state, 'monitor');
    assert.equal(t[1].daemon, true);
    assert.equal(t[2].suspended, true);
    assert.deepEqual(decodeThreads([{ id: 7, state: 42 }])[0].state, 'state(42)');
    assert.deepEqual(decodeThreads(undefined), []);
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
    assert.deepEqual(rows[0].lights.slice(-4), [0, 1, 1, 1]); // first update: running, no delta yet
  });

  test('without CPU times a running thread is lit', () => {
    const tr = new ThreadTracker();
    const rows = tr.update([
      { id: 1, name: 'a', state: 'running', suspended: false, daemon: false },
      { id: 2, name: 'b', state: 'wait', suspended: false, daemon: false },
    ]);
    assert.equal(rows[0].lights.at(-1), 1);
    assert.equal(rows[1].lights.at(-1), 0);
  });

  test('a thread a debugger holds is shown suspended, its lamp dark, whatever its state and CPU', () => {
    const tr = new ThreadTracker();
    tr.update([{ id: 1, name: 'main', state: 'running', suspended: false, daemon: false, utime: 100, stime: 0 }]);
    const [row] = tr.update([{ id: 1, name: 'main', state: 'running', suspended: true, daemon: false, utime: 130, stime: 0 }]);
    assert.equal(row.stateClass, 'suspended');
    assert.equal(row.lights[row.lights.length - 1], 0);
  });
});
