// Hot code replace, the vscode-free part: which folders hold a session's
// build output, which changed class files are waiting to be replaced, and
// what to tell the user about the backend's answer. The backend does the
// work (the redefineClasses request); this module only gathers and reports.

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
    // The backend's refusals already start "hot code replace refused: …".
    const text = /^hot code replace/i.test(r.message) ? r.message[0].toUpperCase() + r.message.slice(1) : `Hot code replace failed: ${r.message}`;
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
