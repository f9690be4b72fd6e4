import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { allocText, ClassCount, countsTitle, countText, deltaText, frameSourceGlob, frameText, matches, shownNames, tableRows, threadText, truncatedNote } from '../../src/memory/model';

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
    // A VM that cannot count never sends counts: the title says so rather than "counting…" for ever.
    assert.equal(countsTitle({ ...at, counted: false, classes: 0, cannotCount: true }), 'cannot count: the VM cannot list instances');
  });

  test('a listing cut at 100,000 says so', () => {
    assert.match(truncatedNote(false), /first 100,000 instances are listed; the class has more/);
    assert.match(truncatedNote(true), /some listed as new may be older/);
  });
});
