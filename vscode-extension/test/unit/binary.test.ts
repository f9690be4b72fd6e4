import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { BinaryNotFoundError, expandHome, resolveBinary } from '../../src/backend/binary';

const ext = '/ext';
const bundled = path.join(ext, 'bin', 'ddmbridge');

describe('resolveBinary', () => {
  test('setting, then bundled, then PATH', () => {
    const exists = (set: string[]) => (p: string) => set.includes(p);
    assert.deepEqual(
      resolveBinary({ setting: '/opt/ddmbridge', extensionPath: ext, envPath: '/usr/bin', platform: 'linux', isExecutable: exists(['/opt/ddmbridge', bundled]) }),
      { path: '/opt/ddmbridge', source: 'setting' },
    );
    assert.deepEqual(
      resolveBinary({ setting: '', extensionPath: ext, envPath: '/usr/bin', platform: 'linux', isExecutable: exists([bundled, '/usr/bin/ddmbridge']) }),
      { path: bundled, source: 'bundled' },
    );
    assert.deepEqual(
      resolveBinary({ setting: '', extensionPath: ext, envPath: '/a::/usr/bin', platform: 'linux', isExecutable: exists(['/usr/bin/ddmbridge']) }),
      { path: '/usr/bin/ddmbridge', source: 'path' },
    );
    assert.deepEqual(
      resolveBinary({ setting: 'ddmbridge-dev', extensionPath: ext, envPath: '/x', platform: 'linux', isExecutable: exists(['/x/ddmbridge-dev']) }),
      { path: '/x/ddmbridge-dev', source: 'setting' },
    );
  });

  test('missing binaries give errors that say what to do', () => {
    const none = (): boolean => false;
    assert.throws(
      () => resolveBinary({ setting: '/nope/ddmbridge', extensionPath: ext, envPath: '', platform: 'linux', isExecutable: none }),
      (e: unknown) => e instanceof BinaryNotFoundError && e.fromSetting && /does not exist or is not executable.*go build/.test(e.message),
    );
    assert.throws(
      () => resolveBinary({ setting: '', extensionPath: ext, envPath: '/usr/bin', platform: 'linux', isExecutable: none }),
      (e: unknown) => e instanceof BinaryNotFoundError && !e.fromSetting && /set "ddmbridge.path"/.test(e.message),
    );
  });

  test('real file system: a non-executable file is not a binary', () => {
    assert.throws(() => resolveBinary({ setting: __filename, extensionPath: ext, envPath: '' }), BinaryNotFoundError);
    assert.equal(resolveBinary({ setting: process.execPath, extensionPath: ext, envPath: '' }).path, process.execPath);
  });

  test('expandHome', () => {
    assert.equal(expandHome('~/go/bin/ddmbridge', '/home/u'), '/home/u/go/bin/ddmbridge');
    assert.equal(expandHome('${userHome}/x', '/home/u'), '/home/u/x');
    assert.equal(expandHome('/a~b', '/home/u'), '/a~b');
  });
});
