// npm run test:e2e: packages the extension unless ddmbridge.vsix is newer
// than everything that goes into it (CI packages just before), compiles the
// tests and runs the code-server smoke test.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const vsix = path.join(root, 'ddmbridge.vsix');

function newest(p) {
  const st = statSync(p);
  if (!st.isDirectory()) {
    return st.mtimeMs;
  }
  return readdirSync(p).reduce((m, f) => Math.max(m, newest(path.join(p, f))), st.mtimeMs);
}

const inputs = ['src', 'media', 'package.json', 'README.md', '.vscodeignore'].map((p) => path.join(root, p));
const stale = !existsSync(vsix) || inputs.some((p) => existsSync(p) && newest(p) > statSync(vsix).mtimeMs);
const run = (cmd) => execSync(cmd, { cwd: root, stdio: 'inherit' });
try {
  if (stale || process.env.E2E_REPACKAGE === '1') {
    run('npm run package');
  } else {
    console.log('test:e2e: ddmbridge.vsix is up to date');
  }
  run('npm run compile-tests');
  run('node scripts/run-tests.mjs e2e');
} catch (e) {
  process.exit(e.status ?? 1);
}
