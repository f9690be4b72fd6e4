// Hot code replace from the editor, as vscode-java-debug offers it: the build
// output folders of each ddmbridge session are watched; changed class files
// are sent to the VM (the backend's redefineClasses request) on their own
// when "ddmbridge.hotCodeReplace" is "auto", or by the "Hot Code Replace"
// command and debug-toolbar button. Every replace shows its progress and
// says what was replaced or why the VM refused.

import * as vscode from 'vscode';
import { errorText } from '../ddmHub';
import type { SessionEvents } from './sessions';
import { ChangeSet, ClassBaseline, hcrMode, hcrReport, HcrResult, outputFolders } from './hcr';

/** How long a build may keep writing class files before they are sent. */
const settleMs = 600;

interface Watched {
  session: vscode.DebugSession;
  folders: string[];
  changes: ChangeSet;
  /** The bytes the VM runs: a rewritten file with the same bytes is not sent. */
  baseline: ClassBaseline;
  watchers: vscode.FileSystemWatcher[];
  timer?: ReturnType<typeof setTimeout>;
}

export class HotCodeReplacer implements vscode.Disposable {
  private readonly sessions = new Map<string, Watched>();
  private readonly subs: vscode.Disposable[] = [];

  constructor(
    private readonly log: vscode.OutputChannel,
    sessions: SessionEvents<vscode.DebugSession>,
  ) {
    this.subs.push(
      sessions.onDidStart((s) => this.watch(s)),
      sessions.onDidEnd(({ session }) => this.unwatch(session.id)),
      vscode.commands.registerCommand('ddmbridge.hotCodeReplace', () => this.replaceNow()),
    );
    if (sessions.active) {
      this.watch(sessions.active);
    }
  }

  private mode() {
    return hcrMode(vscode.workspace.getConfiguration('ddmbridge').get('hotCodeReplace'));
  }

  private watch(session: vscode.DebugSession): void {
    if (session.type !== 'ddmbridge' || this.sessions.has(session.id)) {
      return;
    }
    const folders = outputFolders(session.configuration as { outputFolders?: unknown; classPaths?: unknown; cwd?: unknown });
    const w: Watched = { session, folders, changes: new ChangeSet(), baseline: new ClassBaseline(folders), watchers: [] };
    for (const folder of folders) {
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(folder), '**/*.class'));
      const changed = (uri: vscode.Uri): void => {
        if (w.changes.add(uri.fsPath) && this.mode() === 'auto') {
          clearTimeout(w.timer);
          w.timer = setTimeout(() => void this.replace(w), settleMs);
        }
      };
      watcher.onDidChange(changed);
      watcher.onDidCreate(changed);
      w.watchers.push(watcher);
    }
    this.sessions.set(session.id, w);
    if (folders.length > 0) {
      this.log.appendLine(`session "${session.name}": hot code replace watches ${folders.join(', ')} (${this.mode()})`);
    }
  }

  private unwatch(id: string): void {
    const w = this.sessions.get(id);
    if (w) {
      clearTimeout(w.timer);
      w.watchers.forEach((x) => x.dispose());
      this.sessions.delete(id);
    }
  }

  /** The command and toolbar button: replace what changed in the active session. */
  private async replaceNow(): Promise<void> {
    const active = vscode.debug.activeDebugSession;
    const w = active && this.sessions.get(active.id);
    if (!w) {
      void vscode.window.showWarningMessage('ddmbridge: hot code replace needs an active ddmbridge debug session.');
      return;
    }
    if (w.folders.length === 0) {
      void vscode.window.showWarningMessage(
        `ddmbridge: "${w.session.name}" has no build output folders to watch: add "outputFolders" (or directory "classPaths") to its launch configuration.`,
      );
      return;
    }
    if (w.changes.size === 0) {
      void vscode.window.showInformationMessage('ddmbridge: no class file changed since the last hot code replace: build first.');
      return;
    }
    await this.replace(w, true);
  }

  private async replace(w: Watched, asked = false): Promise<void> {
    clearTimeout(w.timer);
    const written = w.changes.take();
    if (written.length === 0 || this.mode() === 'never') {
      return;
    }
    // A build rewrites the class files of everything it compiled: send only
    // those whose bytes differ from what the VM runs.
    const { changed: files, same, digests } = await w.baseline.filter(written);
    if (same.length > 0) {
      this.log.appendLine(`session "${w.session.name}": ${same.length} class file(s) rewritten with the bytes the VM runs: not sent`);
    }
    if (files.length === 0) {
      if (asked) {
        void vscode.window.showInformationMessage(
          `ddmbridge: the rebuilt class files are the ones the VM runs (${same.length} rewritten with the same bytes): nothing to replace.`,
        );
      }
      return;
    }
    this.log.appendLine(`session "${w.session.name}": hot code replace of ${files.length} class file(s)`);
    let result: HcrResult;
    try {
      // In the status bar, not a toast: a notification's progress stays at
      // least 800 ms beside the toast that says the result.
      result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: `Hot code replace: ${files.length} class file(s)…` },
        () => w.session.customRequest('redefineClasses', { classFiles: files }) as Thenable<HcrResult>,
      );
    } catch (e) {
      // The VM refused, or the session could not do it: the backend says why.
      result = { success: false, message: errorText(e) };
    }
    if (result.success) {
      w.baseline.accept(digests);
    }
    const r = hcrReport(result);
    this.log.appendLine(`session "${w.session.name}": ${r.text}`);
    const show = r.level === 'error' ? vscode.window.showErrorMessage : r.level === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    void show(r.text);
  }

  dispose(): void {
    [...this.sessions.keys()].forEach((id) => this.unwatch(id));
    this.subs.forEach((s) => s.dispose());
  }
}
