import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { allocText, ClassCount, decodeAllocations, decodeCounts, decodeInstances, decodeMemoryView, MemoryDataError, countsTitle, countText, deltaText, frameSourceGlob, frameText, matches, shownNames, tableRows, threadText, truncatedNote } from '../../src/memory/model';

const classes: ClassCount[] = [
  { name: 'java.lang.String', instances: 7424, delta: 3 },
  { name: 'Alloc$Order', instances: 1250, delta: 1000 },
  { name: 'byte[]', instances: 7509, delta: 0 },
  { name: 'com.acme.Gone', instances: 0, delta: -5 },
];

describe('memory view model', () => {
  test('filter: substring with smart case, glob of whole names', () => {
    assert.ok(matches('Alloc$Order', 'order'));
    assert.ok(!matches('Alloc$Order', 'Orders'));
    assert.ok(!matches('Alloc$Order', 'ORDER'), 'an upper-case filter is case-sensitive');
    assert.ok(matches('com.acme.Gone', 'com.acme.*'));
    assert.ok(!matches('xcom.acme.Gone', 'com.acme.*'), 'a glob matches the whole name');
    assert.ok(matches('byte[]', 'byte[]'), 'brackets are a substring, not a glob class');
    assert.ok(matches('anything', '  '));
  });

  test('rows: sorted by instances, delta (largest change either way) or name; only changed', () => {
    const o = { filter: '', onlyChanged: false, sort: 'instances' as const };
    assert.deepEqual(tableRows(classes, o).map((c) => c.name), ['byte[]', 'java.lang.String', 'Alloc$Order', 'com.acme.Gone']);
    assert.deepEqual(tableRows(classes, { ...o, sort: 'delta' }).map((c) => c.name), ['Alloc$Order', 'com.acme.Gone', 'java.lang.String', 'byte[]']);
    assert.deepEqual(tableRows(classes, { ...o, sort: 'name' }).map((c) => c.name), ['Alloc$Order', 'byte[]', 'com.acme.Gone', 'java.lang.String']);
    assert.deepEqual(tableRows(classes, { ...o, onlyChanged: true }).map((c) => c.name), ['java.lang.String', 'Alloc$Order', 'com.acme.Gone']);
    assert.deepEqual(tableRows(classes, { ...o, filter: 'a' }).length, 3);
    assert.equal(classes[0].name, 'java.lang.String', 'the input is not reordered');
  });

  test('texts', () => {
    assert.equal(deltaText(1000), '+1,000');
    assert.equal(deltaText(-5), '−5');
    assert.equal(deltaText(0), '');
    assert.equal(countText(classes[1]), '1,250  +1,000');
    assert.equal(countText(classes[2]), '7,509');
    assert.deepEqual(shownNames(tableRows(classes, { filter: '', onlyChanged: false, sort: 'instances' }), 2), ['byte[]', 'java.lang.String']);
  });

  test('frames as Java writes them, and where their source is', () => {
    const f = { class: 'com.example.simvm.Worker', method: 'work', file: 'Worker.java', line: 12 };
    assert.equal(frameText(f), 'com.example.simvm.Worker.work(Worker.java:12)');
    assert.equal(frameText({ ...f, line: -2 }), 'com.example.simvm.Worker.work(Native Method)');
    assert.equal(frameText({ ...f, line: -1 }), 'com.example.simvm.Worker.work(Worker.java)');
    assert.equal(frameText({ ...f, file: undefined, line: -1 }), 'com.example.simvm.Worker.work(Unknown Source)');
    assert.equal(frameSourceGlob(f), '**/com/example/simvm/Worker.java');
    assert.equal(frameSourceGlob({ ...f, class: 'Main' }), '**/Worker.java', 'a class without a package: any folder');
    assert.equal(frameSourceGlob({ ...f, file: undefined }), undefined);
  });

  test('allocation rows: size and the thread by name, "thread N" when the VM has not named it', () => {
    const a = { class: 'byte[]', size: 1040, thread: 4, threadName: 'Signal Dispatcher', frames: [] };
    assert.equal(threadText(a), 'Signal Dispatcher');
    assert.equal(allocText(a), '1,040 bytes · Signal Dispatcher');
    assert.equal(threadText({ ...a, threadName: undefined }), 'thread 4');
    assert.equal(allocText({ ...a, size: 24, threadName: '' }), '24 bytes · thread 4');
  });

  test('the title says whose counts the table shows: this stop, the previous, an earlier one', () => {
    const at = { stopped: true, classes: 1250, counted: true, complete: true, auto: true };
    assert.equal(countsTitle(at), '1,250 classes');
    assert.equal(countsTitle({ ...at, complete: false }), '1,250 classes (counting…)');
    assert.equal(countsTitle({ ...at, counted: false }), '1,250 classes of the previous stop (counting…)');
    assert.equal(countsTitle({ ...at, counted: false, classes: 0 }), 'counting…');
    assert.equal(countsTitle({ ...at, counted: false, auto: false }), '1,250 classes of an earlier stop: Count Instances Now');
    assert.equal(countsTitle({ ...at, counted: false, auto: false, classes: 0 }), 'not counted: Count Instances Now');
    assert.equal(countsTitle({ ...at, stopped: false }), 'running: 1,250 classes of the previous stop');
    assert.equal(countsTitle({ ...at, stopped: false, classes: 0 }), '');
  });

  test('a listing cut at 100,000 says so', () => {
    assert.match(truncatedNote(false), /first 100,000 instances are listed; the class has more/);
    assert.match(truncatedNote(true), /some listed as new may be older/);
  });
});

// The adapter's answers as dap/ext/memory.go writes them (omitempty fields left out when empty).
const answers = {
  memoryView: { canCount: true, canTrackAllocations: true, simulated: true },
  instanceCounts: { classes: [{ name: 'Alloc$Order', instances: 1250, delta: 1000 }, { name: 'com.acme.Gone', instances: 0, delta: -5 }], complete: true },
  instances: { total: 1250, truncated: true, variablesReference: 17 },
  allocations: {
    enabled: true,
    allocations: [
      { class: 'byte[]', size: 1040, thread: 12, threadName: 'main', frames: [{ class: 'com.example.simvm.Worker', method: 'work', file: 'Worker.java', line: 12 }, { class: 'dalvik.system.VMRuntime', method: 'newArray', line: -2 }] },
      { class: 'java.lang.String', size: 24, thread: 13, frames: [] },
    ],
  },
};
const decoders: Record<keyof typeof answers, (b: unknown) => unknown> = {
  memoryView: decodeMemoryView,
  instanceCounts: (b) => decodeCounts(b, 'instanceCounts'),
  instances: decodeInstances,
  allocations: decodeAllocations,
};

/** Every path to a value in v: [] for v itself, then each field and element. */
function paths(v: unknown, p: (string | number)[] = []): (string | number)[][] {
  const out = [p];
  if (Array.isArray(v)) {
    v.forEach((x, i) => out.push(...paths(x, [...p, i])));
  } else if (typeof v === 'object' && v !== null) {
    for (const [k, x] of Object.entries(v)) {
      out.push(...paths(x, [...p, k]));
    }
  }
  return out;
}

/** A deep copy of v with the value at path replaced by f(old) (undefined: removed). */
function edit(v: unknown, path: (string | number)[], f: (old: unknown) => unknown): unknown {
  const copy = structuredClone(v) as Record<string | number, unknown>;
  if (path.length === 0) {
    return f(copy);
  }
  let o = copy;
  for (const k of path.slice(0, -1)) {
    o = o[k] as Record<string | number, unknown>;
  }
  const last = path[path.length - 1];
  const nv = f(o[last]);
  if (nv === undefined) {
    delete o[last];
  } else {
    o[last] = nv;
  }
  return copy;
}

/** The name a path has in an error: memoryView.canCount, allocations.allocations[0].frames[1].line. */
function named(root: string, path: (string | number)[]): string {
  return path.reduce<string>((w, k) => (typeof k === 'number' ? `${w}[${k}]` : `${w}.${k}`), root);
}

describe('memory view answers, decoded through the schema', () => {
  test('the adapter\'s answers decode to what the view shows', () => {
    assert.deepEqual(decodeMemoryView(answers.memoryView), { canCount: true, canTrackAllocations: true, simulated: true });
    assert.deepEqual(decodeMemoryView({ canCount: false, canTrackAllocations: false }), { canCount: false, canTrackAllocations: false, simulated: false });
    assert.deepEqual(decodeCounts(answers.instanceCounts, 'instanceCounts'), answers.instanceCounts);
    assert.deepEqual(decodeCounts({ classes: [], complete: false }, 'memoryCounts'), { classes: [], complete: false });
    assert.deepEqual(decodeInstances(answers.instances), answers.instances);
    assert.deepEqual(decodeInstances({ total: 0, variablesReference: 0 }), { total: 0, truncated: false, variablesReference: 0 });
    const a = decodeAllocations(answers.allocations);
    assert.deepEqual(a, answers.allocations);
    assert.equal(frameText(a.allocations[0].frames[1]), 'dalvik.system.VMRuntime.newArray(Native Method)');
    assert.equal(threadText(a.allocations[1]), 'thread 13');
  });

  test('each field missing, of the wrong type, or unknown is an error naming it', () => {
    let checked = 0;
    for (const [name, body] of Object.entries(answers) as [keyof typeof answers, unknown][]) {
      const decode = decoders[name];
      const optional = new Set(['simulated', 'truncated', 'threadName', 'file']);
      for (const path of paths(body)) {
        const where = named(name, path);
        const field = path[path.length - 1];
        const rejects = (mutated: unknown, message: RegExp, what: string): void => {
          assert.throws(() => decode(mutated), (e: unknown) => e instanceof MemoryDataError && message.test(e.message), `${what} of ${where}`);
          checked++;
        };
        // The wrong type: a string where a number, boolean, array or object is, an object where a string is.
        rejects(edit(body, path, (old) => (typeof old === 'string' ? { x: 1 } : 'nope')), new RegExp(`^${escape(where)}: expected`), 'a wrong type');
        if (typeof field === 'string' && !optional.has(field)) {
          rejects(edit(body, path, () => undefined), new RegExp(`^${escape(where)}: missing$`), 'a missing field');
        }
        if (typeof body === 'object' && (path.length === 0 || (typeof field === 'number' && typeof getAt(body, path) === 'object'))) {
          rejects(edit(body, path, (old) => ({ ...(old as object), extra: 1 })), new RegExp(`^${escape(where)}\\."extra": unknown field`), 'an unknown field');
        }
      }
    }
    assert.ok(checked > 60, `${checked} malformed answers rejected`);
  });

  test('a count below zero or a fraction is an error; a delta may be negative', () => {
    assert.throws(() => decodeCounts({ classes: [{ name: 'A', instances: -1, delta: 0 }], complete: true }, 'memoryCounts'), /memoryCounts\.classes\[0\]\.instances: expected a non-negative integer, got -1/);
    assert.throws(() => decodeInstances({ total: 1.5, variablesReference: 1 }), /instances\.total: expected a non-negative integer/);
    assert.equal(decodeCounts({ classes: [{ name: 'A', instances: 0, delta: -7 }], complete: true }, 'memoryCounts').classes[0].delta, -7);
    assert.throws(() => decodeAllocations(null), /allocations: expected an object, got null/);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function getAt(v: unknown, path: (string | number)[]): unknown {
  return path.reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], v);
}
