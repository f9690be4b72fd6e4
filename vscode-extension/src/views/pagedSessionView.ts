// A tree view in Run and Debug over the active ddmbridge debug session: a
// list the adapter answers page by page with a custom request (docs/dap.md),
// read when the view shows a stopped VM, dropped when it runs or the session
// changes, and a "Read N more…" row while pages are left; frames that open
// their source. The Coroutines and Virtual Threads views are its two kinds:
// each says what it reads (the request, its page, how a page adds to what is
// read) and how its own rows look.

import * as vscode from 'vscode';
import type { SessionEvents } from '../debug/sessions';

/** A page of an answer: which part of the whole list it holds. */
export interface Page {
  start: number;
  count: number;
  total: number;
}

/** A frame of a stack the view shows: its source opens at its line. */
export interface ViewFrame {
  name: string;
  line?: number;
  source?: { name?: string; path?: string };
}

/** The rows every paged view has; a view's own rows are N. */
export type Row<F> = { kind: 'note'; text: string; tooltip?: string } | { kind: 'more' } | { kind: 'frame'; f: F };

const rowKinds: ReadonlySet<string> = new Set(['note', 'more', 'frame']);

/** What a paged view reads, and what it says before it can. */
export interface PagedList<P> {
  viewId: string;
  /** The prefix of the view's commands: PREFIX.more, PREFIX.openFrame (package.json). */
  commands: string;
  /** The adapter's custom request, asked with { start, count } (and args), and its answer's decoder (strict: a wrong field throws). */
  request: string;
  args?: Record<string, unknown>;
  decode: (body: unknown) => P;
  /** Items read per request. */
  pageSize: number;
  /** What the list is, in the log and errors ("coroutines"). */
  what: string;
  /** The note without a ddmbridge session, and while the VM runs. */
  noSession: string;
  notStopped: string;
}

export abstract class PagedSessionView<P extends Page, I, F extends ViewFrame, N extends { kind: string }>
  implements vscode.TreeDataProvider<Row<F> | N>, vscode.Disposable
{
  private readonly changed = new vscode.EventEmitter<Row<F> | N | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<Row<F> | N>;
  private readonly disposables: vscode.Disposable[] = [];

  private session: vscode.DebugSession | undefined;
  private stopped = false;
  /** The last page read. */
  private page: P | undefined;
  /** What the pages read hold, as merge made it. */
  private items: I[] = [];
  private loaded = 0;
  private loading: Promise<void> | undefined;
  private error = '';

  constructor(
    private readonly log: vscode.OutputChannel,
    sessions: SessionEvents<vscode.DebugSession>,
    private readonly list: PagedList<P>,
  ) {
    this.view = vscode.window.createTreeView(list.viewId, { treeDataProvider: this, showCollapseAll: true });
    this.disposables.push(
      this.view,
      this.changed,
      this.view.onDidChangeVisibility(() => this.view.visible && this.stopped && !this.page && this.changed.fire(undefined)),
      sessions.onDidChangeActive((s) => this.useSession(s)),
      sessions.onDidEnd(({ session }) => session === this.session && this.useSession(undefined)),
      sessions.onDidStop(({ session }) => session === this.session && this.reset(true)),
      sessions.onDidContinue((s) => s === this.session && this.reset(false)),
      vscode.commands.registerCommand(`${list.commands}.more`, () => this.load()),
      vscode.commands.registerCommand(`${list.commands}.openFrame`, (f: F) => this.openFrame(f)),
    );
    this.useSession(sessions.active);
  }

  /** Adds a page's items to what was read. */
  protected abstract merge(items: I[], page: P): void;
  /** The root's rows once a page is read (p undefined: none could be), loaded the items read of p.total. */
  protected abstract rows(p: P | undefined, items: readonly I[], loaded: number): (Row<F> | N)[];
  /** The children of one of the view's own rows. */
  protected abstract children(n: N): (Row<F> | N)[];
  /** The tree item of one of the view's own rows. */
  protected abstract item(n: N): vscode.TreeItem;
  /** What a frame row says beside its name. */
  protected abstract frameDescription(f: F): string | undefined;

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
    this.items = [];
    this.loaded = 0;
    this.loading = undefined;
    this.error = '';
    this.view.description = undefined;
    this.changed.fire(undefined);
  }

  /** Reads the next page (the first when none is read); only while the view is visible (the request may run code in the VM). */
  private load(): Promise<void> {
    const s = this.session;
    if (!s || this.loading) {
      return this.loading ?? Promise.resolve();
    }
    const start = this.loaded;
    this.loading = (async () => {
      try {
        const p = this.list.decode(await s.customRequest(this.list.request, { ...this.list.args, start, count: this.list.pageSize }));
        if (s !== this.session || !this.stopped) {
          return;
        }
        this.page = p;
        this.loaded = p.start + p.count;
        this.merge(this.items, p);
        this.view.description = `${p.total}`;
      } catch (e) {
        this.error = e instanceof Error ? e.message : String(e);
        this.log.appendLine(`${this.list.what}: ${this.error}`);
      } finally {
        this.loading = undefined;
        this.changed.fire(undefined);
      }
    })();
    return this.loading;
  }

  private async openFrame(f: F): Promise<void> {
    if (f.source?.path) {
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(f.source.path));
      const line = Math.max((f.line ?? 1) - 1, 0);
      await vscode.window.showTextDocument(doc, { selection: new vscode.Range(line, 0, line, 0), preview: true });
    }
  }

  async getChildren(n?: Row<F> | N): Promise<(Row<F> | N)[]> {
    if (n) {
      return isRow<F>(n) ? [] : this.children(n as N);
    }
    if (!this.session) {
      return [{ kind: 'note', text: this.list.noSession }];
    }
    if (!this.stopped) {
      return [{ kind: 'note', text: this.list.notStopped }];
    }
    if (!this.page && !this.error) {
      await this.load();
    }
    if (this.error) {
      return [{ kind: 'note', text: `Cannot read the ${this.list.what}: ${this.error}` }];
    }
    const p = this.page;
    const out = this.rows(p, this.items, this.loaded);
    if (p && this.loaded < p.total) {
      out.push({ kind: 'more' });
    }
    return out;
  }

  getTreeItem(n: Row<F> | N): vscode.TreeItem {
    if (!isRow<F>(n)) {
      return this.item(n as N);
    }
    switch (n.kind) {
      case 'note': {
        const it = new vscode.TreeItem(n.text);
        it.tooltip = n.tooltip;
        return it;
      }
      case 'more': {
        const it = new vscode.TreeItem(`Read ${Math.min(this.list.pageSize, (this.page?.total ?? 0) - this.loaded)} more…`);
        it.command = { command: `${this.list.commands}.more`, title: 'Read more' };
        return it;
      }
      case 'frame': {
        const it = new vscode.TreeItem(n.f.name);
        it.description = this.frameDescription(n.f);
        it.iconPath = new vscode.ThemeIcon('debug-stackframe');
        if (n.f.source?.path) {
          it.command = { command: `${this.list.commands}.openFrame`, title: 'Open', arguments: [n.f] };
        }
        return it;
      }
    }
  }
}

function isRow<F>(n: { kind: string }): n is Row<F> {
  return rowKinds.has(n.kind);
}
