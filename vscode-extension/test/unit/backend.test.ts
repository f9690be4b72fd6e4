import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BinaryNotFoundError, resolveBinary } from '../../src/backend/binary';
import { Backend, BackendState } from '../../src/backend/rpc';

describe('Backend start failures', () => {
  test('options are resolved at start: no binary means a failed state that says what to do', async () => {
    const b = new Backend(() => ({
      binary: resolveBinary({ setting: '', extensionPath: '/nonexistent', envPath: '', isExecutable: () => false }).path,
    }));
    const states: [BackendState, string | undefined][] = [];
    b.on('state', (s: BackendState, d?: string) => states.push([s, d]));
    await assert.rejects(b.start(), BinaryNotFoundError);
    assert.equal(b.state, 'failed');
    assert.match(states.at(-1)?.[1] ?? '', /set "ddmbridge.path"/);
  });

  test('a binary that cannot be run', async () => {
    const b = new Backend({ binary: __filename, restart: false });
    await assert.rejects(b.start(), /is not executable/);
    assert.equal(b.state, 'failed');
  });
});
