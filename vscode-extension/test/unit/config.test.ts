import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { attachThrough, attachTarget, ConfigError, describeTarget, defaultConfig, launchTarget, normalizeConfig } from '../../src/debug/config';

const base = { type: 'ddmbridge', name: 't' };

describe('debug configurations', () => {
  test('F5 without launch.json attaches to the current VM', () => {
    assert.deepEqual(attachTarget(defaultConfig()), { kind: 'vm', vm: 'current' });
  });

  test('attach targets', () => {
    assert.deepEqual(attachTarget({ ...base, request: 'attach', port: 8000 }), { kind: 'address', hostName: '127.0.0.1', port: 8000 });
    assert.deepEqual(normalizeConfig({ ...base, request: 'attach', hostName: 'h', port: '8001' }).port, 8001);
    assert.deepEqual(attachTarget(normalizeConfig({ ...base, request: 'attach', processId: '4711' })), { kind: 'process', processId: 4711 });
    // A VM id picked through ${command:ddmbridge.pickVM} in processId becomes vm.
    const picked = normalizeConfig({ ...base, request: 'attach', processId: 'vm-3' }, (id) => id === 'vm-3');
    assert.equal(picked.vm, 'vm-3');
    assert.equal(picked.processId, undefined);
    assert.equal(describeTarget({ ...base, request: 'attach', vm: 'current' }), 'the current VM');
    assert.equal(describeTarget({ ...base, request: 'attach', hostName: 'h', port: 1 }), 'h:1');
  });

  test('actionable errors', () => {
    assert.throws(() => normalizeConfig({ ...base, request: 'attach' }), /Attach needs a target: "vm": "current"/);
    assert.throws(() => normalizeConfig({ ...base, request: 'attach', vm: 'current', port: 1 }), /one target/);
    assert.throws(() => normalizeConfig({ ...base, request: 'attach', port: 'x' }), /"port" must be a TCP port number/);
    assert.throws(() => normalizeConfig({ ...base, request: 'attach', processId: 'abc' }), /"processId" must be the pid/);
    assert.throws(() => normalizeConfig({ ...base, request: 'attach', vm: 'current', timeout: -1 }), /"timeout"/);
    assert.throws(() => normalizeConfig({ ...base, request: 'debug' }), /"request" must be "attach" or "launch"/);
    assert.throws(() => normalizeConfig({ ...base, request: 'launch' }), ConfigError);
    assert.throws(() => normalizeConfig({ ...base, request: 'launch', mainClass: 'A', packageName: 'b' }), /not both/);
  });

  test('launch targets', () => {
    assert.deepEqual(launchTarget({ ...base, request: 'launch', mainClass: ' com.x.Main ' }), { kind: 'java', mainClass: 'com.x.Main' });
    assert.deepEqual(launchTarget({ ...base, request: 'launch', packageName: 'com.example.app' }), { kind: 'android', packageName: 'com.example.app' });
    const c = normalizeConfig({ ...base, request: 'launch', mainClass: 'Main', timeout: '5000' });
    assert.equal(c.timeout, 5000);
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
