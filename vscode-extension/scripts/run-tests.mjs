// Runs the compiled tests of the given levels (unit, protocol, webview, e2e)
// in one `node --test` run, so CI sees a single "# pass N / # fail N".
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const levels = process.argv.slice(2);
if (levels.length === 0) {
  console.error('usage: node scripts/run-tests.mjs unit|protocol|webview|e2e …');
  process.exit(2);
}
const files = [];
for (const level of levels) {
  const dir = path.join(root, 'out', 'tsc', 'test', level);
  if (!existsSync(dir)) {
    console.error(`no compiled tests in ${path.relative(root, dir)}: run "npm run compile-tests" first`);
    process.exit(2);
  }
  for (const f of readdirSync(dir).sort()) {
    if (f.endsWith('.test.js')) {
      files.push(path.join(dir, f));
    }
  }
}
const args = ['--test', '--test-reporter=tap', '--enable-source-maps'];
if (process.env.TEST_NAME_PATTERN) {
  args.push(`--test-name-pattern=${process.env.TEST_NAME_PATTERN}`);
}
const r = spawnSync(process.execPath, [...args, ...files], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
