import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeJVMs, processItems } from '../../src/jvms';

describe('jvms', () => {
  test('decodes jvms/list strictly and lists attachable processes first', () => {
    const ps = decodeJVMs([
      { pid: 12, main: 'Other', command: 'java Other', noAttach: 'process 12 has no JDWP agent: start it with -agentlib:jdwp=…' },
      { pid: 30, main: 'com.example.App', command: 'java -agentlib:jdwp=… com.example.App', address: '127.0.0.1:5005' },
      { pid: 'x' },
      'garbage',
    ]);
    assert.equal(ps.length, 2);
    const items = processItems(ps);
    assert.equal(items[0].label, '30  com.example.App');
    assert.equal(items[0].description, 'JDWP at 127.0.0.1:5005');
    assert.equal(items[1].description, 'no JDWP agent to attach to');
    assert.match(items[1].detail, /-agentlib:jdwp/);
    assert.deepEqual(decodeJVMs(undefined), []);
  });
});
