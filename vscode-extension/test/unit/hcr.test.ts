import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ChangeSet, ClassBaseline, hcrMode, hcrReport, outputFolders } from '../../src/debug/hcr';

describe('hot code replace', () => {
  test('output folders: explicit, else the directories of classPaths, made absolute against cwd', () => {
    assert.deepEqual(outputFolders({ outputFolders: ['/w/out', '/w/out'], classPaths: ['/w/other'] }), ['/w/out']);
    assert.deepEqual(outputFolders({ classPaths: ['/w/classes', '/w/lib/a.jar', 'rel/bin', '/w/x.ZIP'], cwd: '/w' }), ['/w/classes', '/w/rel/bin']);
    assert.deepEqual(outputFolders({ vm: 'current' } as never), []);
    assert.deepEqual(outputFolders({ outputFolders: 'not a list' }), []);
  });

  test('mode defaults to auto', () => {
    assert.equal(hcrMode(undefined), 'auto');
    assert.equal(hcrMode('manual'), 'manual');
    assert.equal(hcrMode('never'), 'never');
    assert.equal(hcrMode('bogus'), 'auto');
  });

  test('changes: class files only, each once, taken in the order seen', () => {
    const c = new ChangeSet();
    assert.equal(c.add('/o/a/B.class'), true);
    assert.equal(c.add('/o/a/B.java'), false);
    c.add('/o/a/C.class');
    c.add('/o/a/B.class');
    assert.equal(c.size, 2);
    assert.deepEqual(c.take(), ['/o/a/B.class', '/o/a/C.class']);
    assert.equal(c.size, 0);
  });

  test('baseline: only class files whose bytes differ from what the VM runs are sent; a replace the VM took is the new baseline', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hcr-baseline-'));
    try {
      const a = path.join(dir, 'p', 'A.class');
      const b = path.join(dir, 'p', 'A$Inner.class');
      fs.mkdirSync(path.dirname(a));
      fs.writeFileSync(a, 'A v1');
      fs.writeFileSync(b, 'inner');
      const base = new ClassBaseline([dir, path.join(dir, 'missing')]);
      await base.filter([]); // read at the session's start, before any build
      // A build rewrites both; only A's bytes changed; C is new.
      fs.writeFileSync(a, 'A v2');
      fs.writeFileSync(b, 'inner');
      const c = path.join(dir, 'p', 'C.class');
      fs.writeFileSync(c, 'C');
      const first = await base.filter([a, b, c, path.join(dir, 'gone.class')]);
      assert.deepEqual(first.changed, [a, c, path.join(dir, 'gone.class')]);
      assert.deepEqual(first.same, [b]);
      // Refused: nothing accepted, A still differs. Taken: A v2 is what the VM runs.
      assert.deepEqual((await base.filter([a])).changed, [a]);
      base.accept(first.digests);
      const again = await base.filter([a, b, c]);
      assert.deepEqual(again.changed, []);
      assert.deepEqual(again.same, [a, b, c]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('reports: replaced, nothing loaded, refused', () => {
    assert.deepEqual(hcrReport({ success: true, message: 'replaced a.B', classes: ['a.B'] }), {
      level: 'info',
      text: 'Hot code replace: replaced 1 class (a.B)',
    });
    const many = hcrReport({ success: true, message: '', classes: ['a', 'b', 'c', 'd', 'e'], skipped: [{ file: 'x.class', reason: 'not loaded' }] });
    assert.equal(many.text, 'Hot code replace: replaced 5 classes (a, b, c and 2 more); skipped 1 not loaded yet or unreadable');
    const none = hcrReport({ success: true, message: 'nothing to replace', classes: [], skipped: [{ file: 'x.class', reason: 'not loaded: later' }] });
    assert.equal(none.level, 'warning');
    assert.match(none.text, /nothing to replace; 1 class file\(s\) skipped \(not loaded: later\)/);
    const refused = hcrReport({ success: false, message: 'hot code replace refused: adding a method is not supported by this VM (ADD_METHOD_NOT_IMPLEMENTED); classes: a.B' });
    assert.equal(refused.level, 'error');
    assert.equal(refused.text, 'Hot code replace refused: adding a method is not supported by this VM (ADD_METHOD_NOT_IMPLEMENTED); classes: a.B');
    assert.equal(hcrReport({ success: false, message: 'session ended' }).text, 'Hot code replace failed: session ended');
    // The refusal as the request's error text (the adapter's error format): said once.
    assert.equal(
      hcrReport({ success: false, message: 'Hot code replace failed: hot code replace refused: adding a method is not supported by this VM (ADD_METHOD_NOT_IMPLEMENTED); classes: a.B' }).text,
      'Hot code replace refused: adding a method is not supported by this VM (ADD_METHOD_NOT_IMPLEMENTED); classes: a.B',
    );
  });
});
