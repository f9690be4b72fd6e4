import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { attachThrough, describeTarget, defaultConfig, normalizeConfig } from '../../src/debug/config';

const base = { type: 'ddmbridge', name: 't' };

describe('debug configurations', () => {
  test('F5 without launch.json attaches to the current VM', () => {
    assert.deepEqual(defaultConfig(), { type: 'ddmbridge', request: 'attach', name: 'Attach to current VM', vm: 'current' });
  });

  test('normalisation after variable substitution', () => {
    assert.equal(normalizeConfig({ ...base, request: 'attach', hostName: 'h', port: '8001' }).port, 8001);
    assert.equal(normalizeConfig({ ...base, request: 'attach', processId: '4711' }).processId, 4711);
    assert.equal(normalizeConfig({ ...base, request: 'launch', mainClass: 'Main', timeout: '5000' }).timeout, 5000);
    // What is not a number stays as it is, for the backend to explain.
    assert.equal(normalizeConfig({ ...base, request: 'attach', port: 'x' }).port, 'x');
    // A VM id picked through ${command:ddmbridge.pickVM} in processId becomes vm.
    const picked = normalizeConfig({ ...base, request: 'attach', processId: 'vm-3' }, (id) => id === 'vm-3');
    assert.equal(picked.vm, 'vm-3');
    assert.equal(picked.processId, undefined);
  });

  test('descriptions', () => {
    assert.equal(describeTarget({ ...base, request: 'attach', vm: 'current' }), 'the current VM');
    assert.equal(describeTarget({ ...base, request: 'attach', vm: '3' }), 'VM 3');
    assert.equal(describeTarget({ ...base, request: 'attach', hostName: 'h', port: 1 }), 'h:1');
    assert.equal(describeTarget({ ...base, request: 'attach', processId: 42 }), 'process 42');
    assert.equal(describeTarget({ ...base, request: 'launch', mainClass: ' com.x.Main ' }), 'com.x.Main');
    assert.equal(describeTarget({ ...base, request: 'launch', packageName: 'com.example.app' }), 'com.example.app');
    assert.equal(describeTarget({ ...base, request: 'attach' }), 't');
  });
});

describe('attachThrough', () => {
  test('a vm becomes the monitor port the backend named, with its id remembered', () => {
    assert.deepEqual(attachThrough({ ...base, request: 'attach', vm: 'current' }, { id: '3', hostName: '127.0.0.1', port: 8700 }), {
      ...base,
      request: 'attach',
      hostName: '127.0.0.1',
      port: 8700,
      ddmbridgeVM: '3',
    });
  });
});
