import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeVirtualThreads, groupLabel, mergeGroups, summary } from '../../src/vthreads/model';

const page = {
  total: 10000,
  start: 0,
  count: 4000,
  listed: true,
  groups: [
    {
      count: 2000,
      threads: [{ id: 7, name: 'virtual#22 (virtual)' }],
      frames: [
        { name: 'VirtualThread.park', line: 742 },
        { name: 'LockSupport.park', line: 221 },
        { name: 'VParked.deeper', line: 23, source: { name: 'VParked.java', path: '/src/VParked.java' } },
      ],
    },
    { count: 2000, threads: [{ id: 8, name: 'virtual#24 (virtual)' }], frames: [{ name: 'VParked.park', line: 13 }] },
  ],
};

describe('virtual threads', () => {
  test('decodes the virtualThreads body strictly', () => {
    const p = decodeVirtualThreads(page);
    assert.equal(p.total, 10000);
    assert.equal(p.groups[0].frames[2].source?.path, '/src/VParked.java');
    assert.throws(() => decodeVirtualThreads({ ...page, extra: 1 }), /virtualThreads: "extra": unknown field/);
    assert.throws(() => decodeVirtualThreads({ ...page, groups: [{ count: -1, threads: [], frames: [] }] }), /groups\[0\]\.count/);
  });

  test('labels a group by its count and the program frame it waits in', () => {
    const p = decodeVirtualThreads(page);
    assert.deepEqual(groupLabel(p.groups[0]), { label: '2000 virtual threads', description: 'VParked.deeper:23' });
    assert.deepEqual(groupLabel({ count: 1, threads: [], frames: [] }), { label: '1 virtual thread', description: 'running (no stack while it runs)' });
    // The program's own frame (its source, not the JDK's deemphasized one) below the JDK's waiting.
    const jdk = (name: string, line: number) => ({ name, line, source: { name: 'x.java', sourceReference: 3, presentationHint: 'deemphasize' } });
    const waiting = {
      count: 1000,
      threads: [],
      frames: [
        jdk('VirtualThread.park', 742),
        jdk('LockSupport.park', 221),
        jdk('AbstractQueuedSynchronizer.acquire', 754),
        jdk('CountDownLatch.await', 230),
        { name: 'VDemo.waitHere', line: 16, source: { name: 'VDemo.java', path: '/w/src/fixture/VDemo.java' } },
        { name: 'VDemo.lambda$main$0', line: 40, source: { name: 'VDemo.java', path: '/w/src/fixture/VDemo.java' } },
      ],
    };
    assert.deepEqual(groupLabel(waiting), { label: '1000 virtual threads', description: 'VDemo.waitHere:16' });
  });

  test('merges the pages of one stack into one group, the largest first', () => {
    const a = decodeVirtualThreads(page).groups;
    const b = decodeVirtualThreads({ ...page, start: 4000, groups: [page.groups[1], { ...page.groups[1], frames: [{ name: 'Other.run', line: 1 }], count: 5 }] }).groups;
    const merged = mergeGroups(a, b);
    assert.deepEqual(
      merged.map((g) => g.count),
      [4000, 2000, 5],
    );
    assert.equal(summary(decodeVirtualThreads(page), 4000), '10000 virtual threads; 4000 read');
    assert.match(summary({ ...decodeVirtualThreads(page), listed: false }, 10000), /includevirtualthreads=y/);
  });
});
