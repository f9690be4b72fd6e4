// Builds the Go backend into bin/ so `npm run package` ships it inside the
// .vsix (the extension prefers it over ddmbridge on PATH). DDMBRIDGE_BIN=FILE
// bundles a prebuilt binary instead. Skipped, with a warning, when Go is not
// installed or DDMBRIDGE_SKIP_BINARY=1; a Go build error fails packaging.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repo = path.resolve(root, '..');
const exe = process.platform === 'win32' ? 'ddmbridge.exe' : 'ddmbridge';
const out = path.join(root, 'bin', exe);

export function findGo() {
  const candidates = [process.env.GO, 'go', '/usr/local/go/bin/go'].filter(Boolean);
  for (const c of candidates) {
    try {
      execFileSync(c, ['version'], { stdio: 'ignore' });
      return c;
    } catch {
      // try the next
    }
  }
  return undefined;
}

if (process.env.DDMBRIDGE_BIN) {
  // A prebuilt backend (the tests honour the same variable).
  mkdirSync(path.dirname(out), { recursive: true });
  copyFileSync(path.resolve(process.env.DDMBRIDGE_BIN), out);
  chmodSync(out, 0o755);
  console.log(`bundle-binary: copied ${process.env.DDMBRIDGE_BIN} to ${path.relative(root, out)}`);
  process.exit(0);
}
if (process.env.DDMBRIDGE_SKIP_BINARY === '1') {
  rmSync(path.join(root, 'bin'), { recursive: true, force: true });
  console.warn('bundle-binary: DDMBRIDGE_SKIP_BINARY=1, packaging without a backend binary');
  process.exit(0);
}
const go = findGo();
if (!go || !existsSync(path.join(repo, 'cmd', 'ddmbridge'))) {
  console.warn('bundle-binary: Go or ../cmd/ddmbridge not found, packaging without a backend binary');
  process.exit(0);
}
mkdirSync(path.dirname(out), { recursive: true });
execFileSync(go, ['build', '-trimpath', '-o', out, './cmd/ddmbridge'], {
  cwd: repo,
  stdio: 'inherit',
  env: { ...process.env, CGO_ENABLED: '0' },
});
console.log(`bundle-binary: built ${path.relative(root, out)}`);
