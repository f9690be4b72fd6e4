// The "Virtual Threads" view in Run and Debug: a stopped JDK 21+ VM's
// virtual threads grouped by identical stack, read page by page with the
// adapter's virtualThreads request (docs/dap.md). The threads request lists
// the platform threads and the ones met at events and stops; this view
// shows the rest, as IntelliJ groups them. The adapter does the work; this
// file shows it.

import * as vscode from 'vscode';
import type { SessionEvents } from '../debug/sessions';
import { views } from '../viewList';
import { decodeVirtualThreads, groupLabel, mergeGroups, summary, VFrame, VGroup, VPage } from './model';

type Node = { kind: 'note'; text: string } | { kind: 'more' } | { kind: 'group'; g: VGroup } | { kind: 'frame'; f: VFrame } | { kind: 'thread'; t: { id: number; name: string } };

/** Threads read per virtualThreads request. */
const pageSize = 4000;

export class VirtualThreadsView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  static readonly viewId = views.virtualThreads.id;

  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<Node>;
  private readonly disposables: vscode.Disposable[] = [];

  private session: vscode.DebugSession | undefined;
  private stopped = false;
  private page: VPage | undefined;
  private groups: VGroup[] = [];
  private loaded = 0;
  private loading: Promise<void> | undefined;
  private error = '';

  constructor(
    private readonly log: vscode.OutputChannel,
    sessions: SessionEvents<vscode.DebugSession>,
  ) {
    this.view = vscode.window.createTreeView(VirtualThreadsView.viewId, { treeDataProvider: this, showCollapseAll: true });
    this.disposables.push(
      this.view,
      this.changed,
      this.view.onDidChangeVisibility(() => this.view.visible && this.stopped && !this.page && this.changed.fire(undefined)),
      sessions.onDidChangeActive((s) => this.useSession(s)),
      sessions.onDidEnd(({ session }) => session === this.session && this.useSession(undefined)),
      sessions.onDidStop(({ session }) => session === this.session && this.reset(true)),
      sessions.onDidContinue((s) => s === this.session && this.reset(false)),
      vscode.commands.registerCommand('ddmbridge.virtualThreads.more', () => this.more()),
      vscode.commands.registerCommand('ddmbridge.virtualThreads.openFrame', (f: VFrame) => this.openFrame(f)),
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
    this.groups = [];
    this.loaded = 0;
    this.loading = undefined;
    this.error = '';
    this.view.description = undefined;
    this.changed.fire(undefined);
  }

  /** Reads the next page (the first when none is read) and merges its groups. */
  private load(): Promise<void> {
    const s = this.session;
    if (!s || this.loading) {
      return this.loading ?? Promise.resolve();
    }
    const start = this.loaded;
    this.loading = (async () => {
      try {
        const p = decodeVirtualThreads(await s.customRequest('virtualThreads', { start, count: pageSize }));
        if (s !== this.session || !this.stopped) {
          return;
        }
        this.page = p;
        this.loaded = p.start + p.count;
        mergeGroups(this.groups, p.groups);
        this.view.description = `${p.total}`;
      } catch (e) {
        this.error = e instanceof Error ? e.message : String(e);
        this.log.appendLine(`virtual threads: ${this.error}`);
      } finally {
        this.loading = undefined;
        this.changed.fire(undefined);
      }
    })();
    return this.loading;
  }

  private async more(): Promise<void> {
    await this.load();
  }

  private async openFrame(f: VFrame): Promise<void> {
    if (f.source?.path) {
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(f.source.path));
      const line = Math.max((f.line ?? 1) - 1, 0);
      await vscode.window.showTextDocument(doc, { selection: new vscode.Range(line, 0, line, 0), preview: true });
    }
  }

  async getChildren(n?: Node): Promise<Node[]> {
    if (n?.kind === 'group') {
      return [...n.g.frames.map((f): Node => ({ kind: 'frame', f })), ...n.g.threads.map((t): Node => ({ kind: 'thread', t }))];
    }
    if (n) {
      return [];
    }
    if (!this.session) {
      return [{ kind: 'note', text: 'Start a ddmbridge debug session of a JDK 21+ VM and stop it to see its virtual threads.' }];
    }
    if (!this.stopped) {
      return [{ kind: 'note', text: 'Virtual threads are read when the VM stops.' }];
    }
    if (!this.page && !this.error) {
      await this.load();
    }
    if (this.error) {
      return [{ kind: 'note', text: `Cannot read the virtual threads: ${this.error}` }];
    }
    const p = this.page;
    if (!p || p.total === 0) {
      return [{ kind: 'note', text: 'No virtual threads (the VM has none, or is older than JDK 21).' }];
    }
    const out: Node[] = [{ kind: 'note', text: summary(p, this.loaded) }, ...this.groups.map((g): Node => ({ kind: 'group', g }))];
    if (this.loaded < p.total) {
      out.push({ kind: 'more' });
    }
    return out;
  }

  getTreeItem(n: Node): vscode.TreeItem {
    switch (n.kind) {
      case 'note':
        return new vscode.TreeItem(n.text);
      case 'more': {
        const it = new vscode.TreeItem(`Read ${Math.min(pageSize, (this.page?.total ?? 0) - this.loaded)} more…`);
        it.command = { command: 'ddmbridge.virtualThreads.more', title: 'Read more' };
        return it;
      }
      case 'group': {
        const { label, description } = groupLabel(n.g);
        const it = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.Collapsed);
        it.description = description;
        it.iconPath = new vscode.ThemeIcon('layers');
        it.tooltip = n.g.frames.map((f) => `${f.name}${f.line ? `:${f.line}` : ''}`).join('\n');
        return it;
      }
      case 'frame': {
        const it = new vscode.TreeItem(n.f.name);
        it.description = n.f.line ? `line ${n.f.line}` : undefined;
        it.iconPath = new vscode.ThemeIcon('debug-stackframe');
        if (n.f.source?.path) {
          it.command = { command: 'ddmbridge.virtualThreads.openFrame', title: 'Open', arguments: [n.f] };
        }
        return it;
      }
      case 'thread': {
        const it = new vscode.TreeItem(n.t.name);
        it.iconPath = new vscode.ThemeIcon('debug-thread');
        return it;
      }
    }
  }
}
