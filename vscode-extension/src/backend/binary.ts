// Finding the ddmbridge binary: the setting, else the copy bundled in the
// extension's bin/ folder, else `ddmbridge` on PATH. No vscode.

import * as fs from 'fs';
import * as path from 'path';

export interface BinaryLookup {
  /** The `ddmbridge.path` setting ('' when unset). */
  setting: string;
  /** The extension's install folder. */
  extensionPath: string;
  /** PATH to search. */
  envPath: string;
  platform?: NodeJS.Platform;
  /** Injected for tests. */
  isExecutable?: (p: string) => boolean;
}

export type BinarySource = 'setting' | 'bundled' | 'path';

export interface ResolvedBinary {
  path: string;
  source: BinarySource;
}

export class BinaryNotFoundError extends Error {
  constructor(
    message: string,
    readonly fromSetting: boolean,
  ) {
    super(message);
    this.name = 'BinaryNotFoundError';
  }
}

export function defaultIsExecutable(p: string): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) {
      return false;
    }
    if (process.platform === 'win32') {
      return true;
    }
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function exeName(platform: NodeJS.Platform = process.platform): string {
  return platform === 'win32' ? 'ddmbridge.exe' : 'ddmbridge';
}

/** Expands a leading ~ and ${userHome}. */
export function expandHome(p: string, home = process.env.HOME ?? process.env.USERPROFILE ?? ''): string {
  return p.replace(/^~(?=$|[\\/])/, home).replace(/\$\{userHome\}/g, home);
}

export function resolveBinary(o: BinaryLookup): ResolvedBinary {
  const platform = o.platform ?? process.platform;
  const isExec = o.isExecutable ?? defaultIsExecutable;
  const exe = exeName(platform);
  const setting = o.setting.trim();
  if (setting !== '') {
    const p = expandHome(setting);
    if (p.includes('/') || p.includes('\\')) {
      if (isExec(p)) {
        return { path: p, source: 'setting' };
      }
      throw new BinaryNotFoundError(
        `The ddmbridge binary set in "ddmbridge.path" (${p}) does not exist or is not executable. ` +
          'Build it with "go build -o ddmbridge ./cmd/ddmbridge" or correct the setting.',
        true,
      );
    }
    const found = searchPath(p, o.envPath, platform, isExec);
    if (found) {
      return { path: found, source: 'setting' };
    }
    throw new BinaryNotFoundError(
      `"ddmbridge.path" is "${p}", which is not on PATH. Set it to the full path of the ddmbridge binary.`,
      true,
    );
  }
  const bundled = path.join(o.extensionPath, 'bin', exe);
  if (isExec(bundled)) {
    return { path: bundled, source: 'bundled' };
  }
  const onPath = searchPath(exe, o.envPath, platform, isExec);
  if (onPath) {
    return { path: onPath, source: 'path' };
  }
  throw new BinaryNotFoundError(
    'The ddmbridge binary was not found: this extension has no bundled copy for this platform and "ddmbridge" is not on PATH. ' +
      'Install it ("go install ./cmd/ddmbridge" in the ddmbridge repository) or set "ddmbridge.path" to its full path.',
    false,
  );
}

function searchPath(name: string, envPath: string, platform: NodeJS.Platform, isExec: (p: string) => boolean): string | undefined {
  const sep = platform === 'win32' ? ';' : ':';
  for (const dir of envPath.split(sep)) {
    if (dir === '') {
      continue;
    }
    const p = path.join(dir, name);
    if (isExec(p)) {
      return p;
    }
  }
  return undefined;
}
