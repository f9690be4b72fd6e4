// The "Coroutines" view in Run and Debug, beside the Call Stack's threads: a
// stopped VM's Kotlin coroutines read page by page with the adapter's
// coroutines request (docs/dap.md), each with its state, dispatcher and
// stack (async frames included), and where the list comes from (DebugProbes,
// or the continuations of the stopped threads), as the adapter says it. The
// adapter does the work; this file shows it.

import * as vscode from 'vscode';
import type { SessionEvents } from '../debug/sessions';
import { views } from '../viewList';
import { CFrame, Coroutine, coroutineLabel, CPage, decodeCoroutines, stateIcon, summary } from './model';

type Node = { kind: 'note'; text: string; tooltip?: string } | { kind: 'more' } | { kind: 'coroutine'; c: Coroutine } | { kind: 'frame'; f: CFrame };

/** Coroutines read per coroutines request (the adapter's default page). */
const pageSize = 1000;

export class CoroutinesView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  static readonly viewId = views.coroutines.id;

  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<Node>;
  private readonly disposables: vscode.Disposable[] = [];

  private session: vscode.DebugSession | undefined;
  private stopped = false;
  private page: CPage | undefined;
  private coroutines: Coroutine[] = [];
  private loaded = 0;
  private loading: Promise<void> | undefined;
  private error = '';

  constructor(
    private readonly log: vscode.OutputChannel,
    sessions: SessionEvents<vscode.DebugSession>,
  ) {
    this.view = vscode.window.createTreeView(CoroutinesView.viewId, { treeDataProvider: this, showCollapseAll: true });
    this.disposables.push(
      this.view,
      this.changed,
      this.view.onDidChangeVisibility(() => this.view.visible && this.stopped && !this.page && this.changed.fire(undefined)),
      sessions.onDidChangeActive((s) => this.useSession(s)),
      sessions.onDidEnd(({ session }) => session === this.session && this.useSession(undefined)),
      sessions.onDidStop(({ session }) => session === this.session && this.reset(true)),
      sessions.onDidContinue((s) => s === this.session && this.reset(false)),
      vscode.commands.registerCommand('ddmbridge.coroutines.more', () => this.load()),
      vscode.commands.registerCommand('ddmbridge.coroutines.openFrame', (f: CFrame) => this.openFrame(f)),
    );
    this.useSession(sessions.active);
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }

  private useSession(s: vscode.DebugSession | undefined): void {
    const next = s?.type === 'ddmbridge' ? s : undefined;
    if (next !== this.session) {
      this.session = next;
      this.reset(false);
    }
  }

  private reset(stopped: boolean): void {
    this.stopped = stopped;
    this.page = undefined;
    this.coroutines = [];
    this.loaded = 0;
    this.loading = undefined;
    this.error = '';
    this.view.description = undefined;
    this.changed.fire(undefined);
  }

  /** Reads the next page (the first when none is read). Only while the view is visible: the request may run code in the VM (DebugProbes). */
  private load(): Promise<void> {
    const s = this.session;
    if (!s || this.loading) {
      return this.loading ?? Promise.resolve();
    }
    const start = this.loaded;
    this.loading = (async () => {
      try {
        const p = decodeCoroutines(await s.customRequest('coroutines', { start, count: pageSize }));
        if (s !== this.session || !this.stopped) {
          return;
        }
        this.page = p;
        this.loaded = p.start + p.count;
        this.coroutines.push(...p.coroutines);
        this.view.description = `${p.total}`;
      } catch (e) {
        this.error = e instanceof Error ? e.message : String(e);
        this.log.appendLine(`coroutines: ${this.error}`);
      } finally {
        this.loading = undefined;
        this.changed.fire(undefined);
      }
    })();
    return this.loading;
  }

  private async openFrame(f: CFrame): Promise<void> {
    if (f.source?.path) {
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(f.source.path));
      const line = Math.max((f.line ?? 1) - 1, 0);
      await vscode.window.showTextDocument(doc, { selection: new vscode.Range(line, 0, line, 0), preview: true });
    }
  }

  async getChildren(n?: Node): Promise<Node[]> {
    if (n?.kind === 'coroutine') {
      return n.c.frames.map((f): Node => ({ kind: 'frame', f }));
    }
    if (n) {
      return [];
    }
    if (!this.session) {
      return [{ kind: 'note', text: 'Start a ddmbridge debug session of a Kotlin program and stop it to see its coroutines.' }];
    }
    if (!this.stopped) {
      return [{ kind: 'note', text: 'Coroutines are read when the VM stops.' }];
    }
    if (!this.page && !this.error) {
      await this.load();
    }
    if (this.error) {
      return [{ kind: 'note', text: `Cannot read the coroutines: ${this.error}` }];
    }
    const p = this.page;
    if (!p) {
      return [];
    }
    const out: Node[] = [{ kind: 'note', text: summary(p, this.loaded), tooltip: p.note }];
    if (p.note) {
      out.push({ kind: 'note', text: p.note });
    }
    out.push(...this.coroutines.map((c): Node => ({ kind: 'coroutine', c })));
    if (this.loaded < p.total) {
      out.push({ kind: 'more' });
    }
    return out;
  }

  getTreeItem(n: Node): vscode.TreeItem {
    switch (n.kind) {
      case 'note': {
        const it = new vscode.TreeItem(n.text);
        it.tooltip = n.tooltip;
        return it;
      }
      case 'more': {
        const it = new vscode.TreeItem(`Read ${Math.min(pageSize, (this.page?.total ?? 0) - this.loaded)} more…`);
        it.command = { command: 'ddmbridge.coroutines.more', title: 'Read more' };
        return it;
      }
      case 'coroutine': {
        const { label, description } = coroutineLabel(n.c);
        const it = new vscode.TreeItem(label, n.c.frames.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
        it.description = description;
        it.iconPath = new vscode.ThemeIcon(stateIcon(n.c.state));
        it.tooltip = [`${n.c.name}: ${n.c.state}${n.c.dispatcher ? ` on ${n.c.dispatcher}` : ''}`, ...n.c.frames.map((f) => `  ${f.name}${f.line ? `:${f.line}` : ''}`)].join('\n');
        return it;
      }
      case 'frame': {
        const it = new vscode.TreeItem(n.f.name);
        it.description = [n.f.source?.name, n.f.line ? `line ${n.f.line}` : ''].filter((s) => s).join(' ');
        it.iconPath = new vscode.ThemeIcon('debug-stackframe');
        if (n.f.source?.path) {
          it.command = { command: 'ddmbridge.coroutines.openFrame', title: 'Open', arguments: [n.f] };
        }
        return it;
      }
    }
  }
}
