import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { coroutineLabel, decodeCoroutines, stateIcon, summary } from '../../src/coroutines/model';

// A coroutines answer as docs/dap.md describes it: one running coroutine on
// the main thread (its thread frames, then its async stack), one suspended.
const page = {
  source: 'continuations of stopped threads',
  note: 'DebugProbes are not installed in the app (kotlinx-coroutines-debug)',
  total: 2,
  start: 0,
  count: 2,
  coroutines: [
    {
      id: 1,
      name: 'coroutine#1',
      state: 'running',
      dispatcher: 'BlockingEventLoop@1b2c3d',
      threadId: 1,
      frames: [
        { name: 'fetchOne', line: 95, source: { name: 'Main.kt', path: '/ws/app/Main.kt' } },
        { name: 'fetchAll', line: 88, source: { name: 'Main.kt', path: '/ws/app/Main.kt', presentationHint: 'subtle' } },
      ],
    },
    { id: 2, name: 'worker#2', state: 'suspended', dispatcher: 'Dispatchers.Default', frames: [{ name: 'work', line: 12 }] },
  ],
};

describe('coroutines', () => {
  test('decodes the coroutines body strictly', () => {
    const p = decodeCoroutines(page);
    assert.equal(p.total, 2);
    assert.equal(p.note, page.note);
    assert.equal(p.coroutines[0].threadId, 1);
    assert.equal(p.coroutines[0].frames[1].source?.path, '/ws/app/Main.kt');
    assert.equal(p.coroutines[1].threadId, undefined);
    assert.deepEqual(decodeCoroutines({ ...page, note: undefined, coroutines: [] }).coroutines, []);
    assert.equal(p.coroutines[0].creationStack, undefined);
    const created = decodeCoroutines({
      ...page,
      coroutines: [{ ...page.coroutines[1], creationStack: [{ name: 'CoroutinesKt$main$1.invokeSuspend', line: 124, source: { name: 'Coroutines.kt', path: '/ws/app/Coroutines.kt' } }] }],
    });
    assert.equal(created.coroutines[0].creationStack?.[0].line, 124);
  });

  test('names the field that is off the schema', () => {
    const bad: [unknown, RegExp][] = [
      [{ ...page, extra: 1 }, /coroutines: "extra": unknown field/],
      [{ ...page, total: undefined }, /coroutines: total: missing/],
      [{ ...page, total: -1 }, /total: expected a non-negative integer/],
      [{ ...page, coroutines: {} }, /coroutines: coroutines: expected an array/],
      [{ ...page, coroutines: [{ ...page.coroutines[1], state: 'RUNNING' }] }, /coroutines\[0\]\.state: expected one of running, suspended, created/],
      [{ ...page, coroutines: [{ ...page.coroutines[1], id: '2' }] }, /coroutines\[0\]\.id: expected an integer/],
      [{ ...page, coroutines: [{ ...page.coroutines[1], frames: undefined }] }, /coroutines\[0\]\.frames: missing/],
      [{ ...page, coroutines: [{ ...page.coroutines[1], job: 'x' }] }, /coroutines\[0\]\."job": unknown field/],
      [{ ...page, coroutines: [{ ...page.coroutines[1], frames: [{ line: 3 }] }] }, /coroutines\[0\]\.frames\[0\]\.name: missing/],
      [{ ...page, coroutines: [{ ...page.coroutines[1], frames: [{ name: 'f', line: 1.5 }] }] }, /frames\[0\]\.line: expected an integer/],
      [{ ...page, coroutines: [{ ...page.coroutines[1], frames: [{ name: 'f', source: 'Main.kt' }] }] }, /frames\[0\]\.source: expected a DAP Source object/],
      [{ ...page, coroutines: [{ ...page.coroutines[1], frames: [{ name: 'f', source: { path: 7 } }] }] }, /frames\[0\]\.source\.path: expected a string/],
      [{ ...page, coroutines: [{ ...page.coroutines[1], creationStack: {} }] }, /coroutines\[0\]\.creationStack: expected an array/],
      [{ ...page, coroutines: [{ ...page.coroutines[1], creationStack: [{ line: 3 }] }] }, /creationStack\[0\]\.name: missing/],
      ['nothing', /coroutines: body: expected an object/],
    ];
    for (const [body, re] of bad) {
      assert.throws(() => decodeCoroutines(body), re, JSON.stringify(body));
    }
  });

  test('a row says the state, the dispatcher and where the coroutine is', () => {
    const [running, suspended] = decodeCoroutines(page).coroutines;
    assert.deepEqual(coroutineLabel(running), { label: 'coroutine#1', description: 'running · BlockingEventLoop@1b2c3d · fetchOne:95' });
    assert.deepEqual(coroutineLabel({ ...suspended, dispatcher: undefined, frames: [] }), { label: 'worker#2', description: 'suspended' });
    // A frame the VM knows no line of (-1) is shown by its name.
    const noLine = decodeCoroutines({ ...page, coroutines: [{ ...page.coroutines[1], frames: [{ name: 'ChainKt$chainC$1.invokeSuspend', line: -1 }] }] });
    assert.equal(coroutineLabel(noLine.coroutines[0]).description, 'suspended · Dispatchers.Default · ChainKt$chainC$1.invokeSuspend');
    assert.equal(stateIcon('running'), 'debug-start');
    assert.equal(stateIcon('suspended'), 'debug-pause');
    assert.equal(stateIcon('created'), 'circle-outline');
  });

  test('the summary says where the list comes from', () => {
    const p = decodeCoroutines(page);
    assert.equal(summary(p, 2), '2 coroutines from the continuations of stopped threads (only those found on them)');
    assert.equal(summary({ ...p, source: "VM's coroutine objects" }, 2), "2 coroutines from the VM's coroutine objects (every coroutine of the VM, without DebugProbes)");
    assert.equal(summary({ ...p, source: 'DebugProbes', total: 1000 }, 1000), '1000 coroutines from DebugProbes (every coroutine of the VM)');
    assert.equal(summary({ ...p, source: 'DebugProbes', total: 2500 }, 1000), '2500 coroutines from DebugProbes (every coroutine of the VM); 1000 read');
  });
});
