import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeThreadDump, dumpGroupRow } from '../../src/threads/threadDump';

// The shape of vm/threadDump's result for a JDK 25 VM (docs/rpc.md).
const body = {
  id: '1',
  processId: '4242',
  time: '2026-12-04T04:22:50Z',
  runtimeVersion: '25.0.3+9-LTS',
  platform: [{ tid: '3', name: 'main', state: 'TIMED_WAITING', stack: ['App.main(App.java:40)'] }],
  platformCount: 14,
  virtual: 10000,
  groups: [
    {
      count: 9999,
      stack: [
        'java.base/java.lang.VirtualThread.park(VirtualThread.java:742)',
        'java.base/java.util.concurrent.locks.LockSupport.park(LockSupport.java:221)',
        'java.base/java.util.concurrent.CountDownLatch.await(CountDownLatch.java:230)',
        'App.park(App.java:13)',
      ],
      states: { WAITING: 9999 },
      tids: ['22', '24'],
      blockers: ['java.util.concurrent.CountDownLatch$Sync@72ef962d'],
      mounted: 0,
    },
    { count: 1, stack: ['App.spin(App.java:5)'], states: { RUNNABLE: 1 }, tids: ['99'], carriers: ['23'], mounted: 1 },
  ],
};

describe('thread dump', () => {
  test('decodes vm/threadDump strictly', () => {
    const d = decodeThreadDump(body);
    assert.equal(d.virtual, 10000);
    assert.equal(d.groups[1].carriers[0], '23');
    assert.throws(() => decodeThreadDump({ ...body, virtual: 'many' }), /thread dump: virtual/);
    assert.throws(() => decodeThreadDump({ ...body, groups: [{ ...body.groups[0], states: [] }] }), /groups\[0\]\.states/);
  });

  test('a group row names the frame of the program it waits in, the states, the carriers and the blocker', () => {
    const d = decodeThreadDump(body);
    assert.deepEqual(dumpGroupRow(d.groups[0]), {
      count: '9999 virtual threads',
      where: 'App.park(App.java:13)',
      states: '9999 WAITING',
      blocker: 'waiting for java.util.concurrent.CountDownLatch$Sync@72ef962d',
    });
    assert.deepEqual(dumpGroupRow(d.groups[1]), { count: '1 virtual thread', where: 'App.spin(App.java:5)', states: '1 RUNNABLE; 1 mounted on #23', blocker: '' });
  });
});
