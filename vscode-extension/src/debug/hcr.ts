// Hot code replace, the vscode-free part: which folders hold a session's
// build output, which changed class files are waiting to be replaced, and
// what to tell the user about the backend's answer. The backend does the
// work (the redefineClasses request); this module only gathers and reports.

import { createHash } from 'crypto';
import { promises as fsp } from 'fs';
import * as path from 'path';

/** When changed classes are sent to the VM. */
export type HcrMode = 'auto' | 'manual' | 'never';

export function hcrMode(v: unknown): HcrMode {
  return v === 'manual' || v === 'never' ? v : 'auto';
}

/**
 * The build output folders of a session: its "outputFolders" if given, else
 * the directories among a launch's "classPaths" (jars are not watched: a
 * rebuilt jar is not a hot code replace).
 */
export function outputFolders(config: { outputFolders?: unknown; classPaths?: unknown; cwd?: unknown }): string[] {
  const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x !== '') : []);
  const base = typeof config.cwd === 'string' && config.cwd !== '' ? config.cwd : undefined;
  const abs = (p: string): string => (base && !path.isAbsolute(p) ? path.resolve(base, p) : p);
  const explicit = list(config.outputFolders);
  if (explicit.length > 0) {
    return [...new Set(explicit.map(abs))];
  }
  return [...new Set(list(config.classPaths).filter((p) => !/\.(jar|zip)$/i.test(p)).map(abs))];
}

/** The class files changed since the last replace, in the order first seen. */
export class ChangeSet {
  private files = new Set<string>();

  add(file: string): boolean {
    if (!file.endsWith('.class')) {
      return false;
    }
    this.files.add(file);
    return true;
  }

  get size(): number {
    return this.files.size;
  }

  /** Returns the pending files and forgets them. */
  take(): string[] {
    const out = [...this.files];
    this.files.clear();
    return out;
  }
}

/**
 * The bytes of the class files the VM runs, as a digest per file: read from
 * the output folders when the session starts and updated after each replace
 * the VM took. A build rewrites every class file of what it compiles (javac
 * writes the same bytes for an unchanged source): only the files whose
 * bytes differ from what the VM runs are sent, counted and named.
 */
export class ClassBaseline {
  private readonly digests = new Map<string, string>();
  private readonly ready: Promise<void>;

  /** Reads the class files under folders (in the background; filter waits for it). */
  constructor(folders: readonly string[]) {
    this.ready = Promise.all(folders.map((f) => this.walk(f))).then(() => undefined);
  }

  private async walk(dir: string): Promise<void> {
    let entries: import('fs').Dirent[];
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch {
      return; // not there (yet): every class file in it counts as changed
    }
    await Promise.all(
      entries.map(async (e) => {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) {
          await this.walk(p);
        } else if (e.name.endsWith('.class')) {
          const d = await digestOf(p);
          if (d !== undefined && !this.digests.has(p)) {
            this.digests.set(p, d);
          }
        }
      }),
    );
  }

  /**
   * Splits files into those whose bytes differ from what the VM runs (or
   * that cannot be read: the backend says why) and those rewritten with the
   * same bytes. changed carries each file's digest for accept.
   */
  async filter(files: readonly string[]): Promise<{ changed: string[]; same: string[]; digests: Map<string, string> }> {
    await this.ready;
    const changed: string[] = [];
    const same: string[] = [];
    const digests = new Map<string, string>();
    for (const f of files) {
      const d = await digestOf(f);
      if (d !== undefined && this.digests.get(f) === d) {
        same.push(f);
        continue;
      }
      changed.push(f);
      if (d !== undefined) {
        digests.set(f, d);
      }
    }
    return { changed, same, digests };
  }

  /** Records the bytes the VM runs now (after a replace it took). */
  accept(digests: ReadonlyMap<string, string>): void {
    digests.forEach((d, f) => this.digests.set(f, d));
  }
}

async function digestOf(file: string): Promise<string | undefined> {
  try {
    return createHash('sha1').update(await fsp.readFile(file)).digest('hex');
  } catch {
    return undefined;
  }
}

/** The backend's HotCodeReplaceBody (dap/hcr.go). */
export interface HcrResult {
  success: boolean;
  message: string;
  classes?: string[];
  skipped?: { file: string; class?: string; reason: string }[];
  error?: string;
}

export interface HcrReport {
  level: 'info' | 'warning' | 'error';
  text: string;
}

/** What to show for a redefineClasses answer. */
export function hcrReport(r: HcrResult): HcrReport {
  const classes = r.classes ?? [];
  const skipped = r.skipped ?? [];
  const names = (xs: string[]): string => (xs.length <= 3 ? xs.join(', ') : `${xs.slice(0, 3).join(', ')} and ${xs.length - 3} more`);
  if (!r.success) {
    // The backend's refusals already start "hot code replace refused: …"
    // (as the request's error, VS Code puts "Hot code replace failed: " before).
    const message = r.message.replace(/^hot code replace failed: (?=hot code replace)/i, '');
    const text = /^hot code replace/i.test(message) ? message[0].toUpperCase() + message.slice(1) : `Hot code replace failed: ${message}`;
    return { level: 'error', text: r.error && !text.includes(r.error) ? `${text} (${r.error})` : text };
  }
  if (classes.length === 0) {
    const text = skipped.length > 0 ? `Hot code replace: nothing to replace; ${skipped.length} class file(s) skipped (${skipped[0].reason})` : `Hot code replace: ${r.message}`;
    return { level: 'warning', text };
  }
  let text = `Hot code replace: replaced ${classes.length} class${classes.length === 1 ? '' : 'es'} (${names(classes)})`;
  if (skipped.length > 0) {
    text += `; skipped ${skipped.length} not loaded yet or unreadable`;
  }
  return { level: 'info', text };
}
