// The "Memory" view in Run and Debug: the class table of the stopped VM
// (instance counts and their change since the previous stop, with a filter,
// a sort and "only changed"), each class expandable to its instances (and
// each instance to its fields and the objects that refer to it), "track new
// instances" for a class, and for Android VMs the allocations recorded since
// the previous stop, with stack frames that open their source. The adapter
// does the work (docs/memory.md); this file shows it, its answers and events
// decoded strictly (memory/model).

import * as vscode from 'vscode';
import type { SessionEvents } from '../debug/sessions';
import { views } from '../viewList';
import { Allocation, AllocSite, ClassCount, CountsBody, decodeAllocations, decodeCounts, decodeInstances, decodeMemoryView, SortKey, TableOptions, allocText, countsTitle, countText, frameSourceGlob, frameText, shownNames, tableRows, threadText, truncatedNote } from './model';

/** A DAP variable as the variables request gives it. */
interface Variable {
  name: string;
  value: string;
  type?: string;
  variablesReference: number;
}

type Node =
  | { kind: 'class'; c: ClassCount }
  | { kind: 'page'; className: string; fresh: boolean; start: number }
  | { kind: 'fresh'; className: string }
  | { kind: 'var'; v: Variable; id: string }
  | { kind: 'allocs' }
  | { kind: 'alloc'; a: Allocation; i: number }
  | { kind: 'frame'; f: AllocSite; id: string }
  | { kind: 'note'; text: string; id: string };

const pageSize = 100;

export class MemoryView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  static readonly viewId = views.memory.id;

  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<Node>;
  private readonly disposables: vscode.Disposable[] = [];

  private session: vscode.DebugSession | undefined;
  private classes: ClassCount[] = [];
  private complete = false;
  private counted = false; // the table's counts are of this stop
  private stopped = false;
  private note = 'Start a ddmbridge debug session and stop it to see its classes.';
  private opts: TableOptions = { filter: '', onlyChanged: false, sort: 'instances' };
  private tracked = new Map<string, number>(); // class → new instances at this stop (-1: not known yet)
  private canAllocs = false;
  /** The VM is ddmbridge's simulated one: its allocation records are made up, and the view says so. */
  private simulated = false;
  private allocsOn = false;
  private allocs: Allocation[] = [];

  constructor(
    private readonly log: vscode.OutputChannel,
    sessions: SessionEvents<vscode.DebugSession>,
  ) {
    this.view = vscode.window.createTreeView(MemoryView.viewId, { treeDataProvider: this, showCollapseAll: true });
    this.disposables.push(
      this.view,
      this.changed,
      this.view.onDidChangeVisibility(() => {
        this.title();
        void this.tellVisibility();
      }),
      sessions.onDidChangeActive((s) => this.useSession(s)),
      sessions.onDidEnd(({ session }) => session === this.session && this.useSession(undefined)),
      sessions.onDidReceiveCustomEvent((e) => {
        if (e.session === this.session && e.event === 'memoryCounts') {
          try {
            this.counts(decodeCounts(e.body, 'memoryCounts'));
          } catch (err) {
            this.log.appendLine(`memory view: ${(err as Error).message}`);
          }
        }
      }),
      sessions.onDidStop(({ session }) => session === this.session && this.onStop()),
      sessions.onDidContinue((s) => s === this.session && this.onResume()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('ddmbridge.memory.countAtEveryStop')) {
          this.title();
          void this.tellVisibility();
        }
      }),
      vscode.commands.registerCommand('ddmbridge.memory.countAtEveryStop', () => this.setAuto(true)),
      vscode.commands.registerCommand('ddmbridge.memory.countWhenAsked', () => this.setAuto(false)),
      vscode.commands.registerCommand('ddmbridge.memory.filter', () => this.askFilter()),
      vscode.commands.registerCommand('ddmbridge.memory.sort', () => this.askSort()),
      vscode.commands.registerCommand('ddmbridge.memory.onlyChanged', () => this.toggleOnlyChanged()),
      vscode.commands.registerCommand('ddmbridge.memory.refresh', () => this.refresh()),
      vscode.commands.registerCommand('ddmbridge.memory.track', (n?: Node) => this.track(n, true)),
      vscode.commands.registerCommand('ddmbridge.memory.untrack', (n?: Node) => this.track(n, false)),
      vscode.commands.registerCommand('ddmbridge.memory.trackAllocations', () => this.trackAllocations(!this.allocsOn)),
      vscode.commands.registerCommand('ddmbridge.memory.openFrame', (f: AllocSite) => this.openFrame(f)),
    );
    this.useSession(sessions.active);
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }

  private useSession(s: vscode.DebugSession | undefined): void {
    const next = s?.type === 'ddmbridge' ? s : undefined;
    if (next === this.session) {
      return;
    }
    this.session = next;
    this.classes = [];
    this.complete = false;
    this.counted = false;
    this.stopped = false;
    this.tracked.clear();
    this.allocs = [];
    this.allocsOn = false;
    this.canAllocs = false;
    this.simulated = false;
    this.note = next ? 'Counts are taken when the VM stops.' : 'Start a ddmbridge debug session and stop it to see its classes.';
    this.title();
    this.changed.fire(undefined);
    void this.tellVisibility();
  }

  /** Tells the adapter whether the view is visible and what it shows (counted first). */
  private async tellVisibility(): Promise<void> {
    const s = this.session;
    if (!s) {
      return;
    }
    try {
      const body = decodeMemoryView(
        await s.customRequest('memoryView', {
          visible: this.view.visible && this.auto(), // counted in the background only then
          shown: shownNames(tableRows(this.classes, this.opts)),
        }),
      );
      this.canAllocs = body.canTrackAllocations;
      this.simulated = body.simulated;
      void vscode.commands.executeCommand('setContext', 'ddmbridge.memory.canTrackAllocations', this.canAllocs);
      if (!body.canCount) {
        this.note = 'This VM cannot count instances (CanGetInstanceInfo is false).';
      }
      this.changed.fire(undefined);
    } catch (e) {
      this.log.appendLine(`memory view: ${(e as Error).message}`);
    }
  }

  private counts(b: CountsBody): void {
    if (b.complete) {
      const before = shownNames(tableRows(this.classes, this.opts)).join('\n');
      this.classes = b.classes;
      if (shownNames(tableRows(this.classes, this.opts)).join('\n') !== before) {
        void this.tellVisibility(); // the rows shown changed: counted first from the next stop on
      }
    } else {
      const fresh = new Map(b.classes.map((c) => [c.name, c]));
      this.classes = this.classes.map((c) => fresh.get(c.name) ?? c);
    }
    this.complete = b.complete;
    this.counted = true;
    this.stopped = true;
    this.title();
    this.changed.fire(undefined);
  }

  private onStop(): void {
    this.stopped = true;
    this.counted = false;
    this.title();
    if (!this.view.visible) {
      return;
    }
    for (const c of this.tracked.keys()) {
      this.tracked.set(c, -1);
    }
    this.changed.fire(undefined); // expanded classes list this stop's instances
    if (this.allocsOn) {
      void this.loadAllocations();
    }
  }

  private onResume(): void {
    this.stopped = false;
    this.title();
    this.changed.fire(undefined); // expanded classes: their instances are gone with the stop
  }

  private title(): void {
    const parts = [countsTitle({ stopped: this.stopped, classes: this.classes.length, counted: this.counted, complete: this.complete, auto: this.view.visible && this.auto() })];
    if (this.opts.filter) {
      parts.push(`filter "${this.opts.filter}"`);
    }
    if (this.opts.onlyChanged) {
      parts.push('only changed');
    }
    if (this.opts.sort !== 'instances') {
      parts.push(`by ${this.opts.sort}`);
    }
    this.view.description = parts.filter(Boolean).join(' · ');
  }

  getTreeItem(n: Node): vscode.TreeItem {
    switch (n.kind) {
      case 'class': {
        const t = new vscode.TreeItem(n.c.name, vscode.TreeItemCollapsibleState.Collapsed);
        const fresh = this.tracked.get(n.c.name);
        t.id = `class:${n.c.name}`;
        t.description = countText(n.c) + (fresh !== undefined && fresh >= 0 ? `  (${fresh} new)` : '');
        t.tooltip = `${n.c.name}: ${n.c.instances.toLocaleString('en-US')} instances, ${n.c.delta >= 0 ? '+' : ''}${n.c.delta} since the previous stop`;
        t.contextValue = this.tracked.has(n.c.name) ? 'memoryClassTracked' : 'memoryClass';
        t.iconPath = new vscode.ThemeIcon('symbol-class');
        return t;
      }
      case 'page': {
        const t = new vscode.TreeItem(`more instances from [${n.start}]…`, vscode.TreeItemCollapsibleState.Collapsed);
        t.id = `page:${n.className}:${n.fresh}:${n.start}`;
        return t;
      }
      case 'fresh': {
        const t = new vscode.TreeItem('New since the previous stop', vscode.TreeItemCollapsibleState.Collapsed);
        t.id = `fresh:${n.className}`;
        t.iconPath = new vscode.ThemeIcon('sparkle');
        return t;
      }
      case 'var': {
        const t = new vscode.TreeItem(`${n.v.name}: ${n.v.value}`, n.v.variablesReference ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
        t.tooltip = n.v.type ? `${n.v.type}: ${n.v.value}` : n.v.value;
        return t;
      }
      case 'allocs': {
        // "Simulated" leads the label: a narrow sidebar cuts the end of it and hides the description.
        const t = new vscode.TreeItem(this.simulated ? 'Simulated allocations since the previous stop' : 'Allocations since the previous stop', vscode.TreeItemCollapsibleState.Collapsed);
        t.id = 'allocs';
        t.description = this.allocsOn ? `${this.allocs.length}` : 'tracker off';
        t.tooltip = this.simulated
          ? "Simulated data: this VM is ddmbridge's simulated Android VM (ddmbridge simvm), whose allocation tracker makes up its records " +
            '(classes, sizes, the threads it runs, frames of com.example.simvm.Worker). A real Android VM records its own.'
          : "Recorded by the VM's allocation tracker (DDM) between the previous stop and this one, most recent first.";
        t.iconPath = new vscode.ThemeIcon('record');
        return t;
      }
      case 'alloc': {
        const t = new vscode.TreeItem(n.a.class, n.a.frames.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
        t.description = allocText(n.a);
        t.tooltip = `${n.a.class}, ${n.a.size.toLocaleString('en-US')} bytes, allocated on ${threadText(n.a)} (thread id ${n.a.thread})${this.simulated ? ' — simulated' : ''}`;
        return t;
      }
      case 'frame': {
        const t = new vscode.TreeItem(frameText(n.f));
        t.command = { command: 'ddmbridge.memory.openFrame', title: 'Open Source', arguments: [n.f] };
        t.iconPath = new vscode.ThemeIcon('debug-stackframe');
        return t;
      }
      case 'note':
        return new vscode.TreeItem(n.text);
    }
  }

  async getChildren(n?: Node): Promise<Node[]> {
    if (!n) {
      const rows: Node[] = tableRows(this.classes, this.opts).map((c) => ({ kind: 'class', c }));
      if (this.canAllocs) {
        rows.unshift({ kind: 'allocs' });
      }
      return rows.length ? rows : [{ kind: 'note', text: this.note, id: 'note' }];
    }
    try {
      switch (n.kind) {
        case 'class': {
          const kids = await this.instances(n.c.name, false, 0);
          return this.tracked.has(n.c.name) ? [{ kind: 'fresh', className: n.c.name }, ...kids] : kids;
        }
        case 'fresh':
          return await this.instances(n.className, true, 0);
        case 'page':
          return await this.instances(n.className, n.fresh, n.start);
        case 'var':
          return await this.variables(n.v.variablesReference, n.id);
        case 'allocs':
          return this.allocs.map((a, i) => ({ kind: 'alloc', a, i }));
        case 'alloc':
          return n.a.frames.map((f, i) => ({ kind: 'frame', f, id: `${n.i}:${i}` }));
        default:
          return [];
      }
    } catch (e) {
      return [{ kind: 'note', text: (e as Error).message, id: `err:${Math.random()}` }];
    }
  }

  private async instances(className: string, fresh: boolean, start: number): Promise<Node[]> {
    const s = this.session;
    if (!s || !this.stopped) {
      return [{ kind: 'note', text: 'Instances are listed while the VM is stopped.', id: 'running' }];
    }
    const body = decodeInstances(await s.customRequest('instances', { className, start, count: pageSize, new: fresh }));
    if (fresh) {
      this.tracked.set(className, body.total);
    }
    const kids = await this.variables(body.variablesReference, `${className}:${fresh}`);
    if (start + pageSize < body.total) {
      kids.push({ kind: 'page', className, fresh, start: start + pageSize });
    } else if (body.truncated) {
      kids.push({ kind: 'note', text: truncatedNote(fresh), id: `cut:${className}:${fresh}` });
    }
    if (!kids.length) {
      kids.push({ kind: 'note', text: fresh ? 'No new instance since the previous stop.' : 'No instances.', id: `none:${className}:${fresh}` });
    }
    return kids;
  }

  private async variables(ref: number, parent: string): Promise<Node[]> {
    const s = this.session;
    if (!s || !ref) {
      return [];
    }
    const body = (await s.customRequest('variables', { variablesReference: ref })) as { variables: Variable[] };
    return body.variables.map((v, i) => ({ kind: 'var', v, id: `${parent}/${i}` }));
  }

  private async askFilter(): Promise<void> {
    const f = await vscode.window.showInputBox({
      title: 'Filter classes',
      prompt: 'A glob (com.acme.*) or part of a class name; empty shows all',
      value: this.opts.filter,
    });
    if (f === undefined) {
      return;
    }
    this.opts.filter = f.trim();
    this.update();
  }

  private async askSort(): Promise<void> {
    const items: { label: string; key: SortKey }[] = [
      { label: 'Instances', key: 'instances' },
      { label: 'Change since the previous stop', key: 'delta' },
      { label: 'Name', key: 'name' },
    ];
    const pick = await vscode.window.showQuickPick(items, { title: 'Sort classes by' });
    if (pick) {
      this.opts.sort = pick.key;
      this.update();
    }
  }

  private toggleOnlyChanged(): void {
    this.opts.onlyChanged = !this.opts.onlyChanged;
    this.update();
  }

  private update(): void {
    this.title();
    this.changed.fire(undefined);
    void this.tellVisibility(); // what is shown is counted first
  }

  private async refresh(): Promise<void> {
    const s = this.session;
    if (!s) {
      return;
    }
    try {
      this.counts(decodeCounts(await s.customRequest('instanceCounts', {}), 'instanceCounts'));
    } catch (e) {
      void vscode.window.showErrorMessage(`Memory: ${(e as Error).message}`);
    }
  }

  /** Whether counts are taken at every stop (the setting). */
  private auto(): boolean {
    return vscode.workspace.getConfiguration('ddmbridge.memory').get<boolean>('countAtEveryStop', true);
  }

  private async setAuto(on: boolean): Promise<void> {
    await vscode.workspace.getConfiguration('ddmbridge.memory').update('countAtEveryStop', on, vscode.ConfigurationTarget.Global);
  }

  private async track(n: Node | undefined, on: boolean): Promise<void> {
    const s = this.session;
    if (!s || n?.kind !== 'class') {
      return;
    }
    try {
      await s.customRequest('trackInstances', { className: n.c.name, track: on });
      if (on) {
        this.tracked.set(n.c.name, -1);
      } else {
        this.tracked.delete(n.c.name);
      }
      this.changed.fire(undefined);
    } catch (e) {
      void vscode.window.showErrorMessage(`Memory: ${(e as Error).message}`);
    }
  }

  private async trackAllocations(on: boolean): Promise<void> {
    const s = this.session;
    if (!s) {
      return;
    }
    try {
      const body = decodeAllocations(await s.customRequest('allocations', { enable: on }));
      this.allocsOn = body.enabled;
      this.allocs = body.allocations;
      this.changed.fire(undefined);
    } catch (e) {
      void vscode.window.showErrorMessage(`Memory: ${(e as Error).message}`);
    }
  }

  private async loadAllocations(): Promise<void> {
    const s = this.session;
    if (!s) {
      return;
    }
    try {
      const body = decodeAllocations(await s.customRequest('allocations', {}));
      this.allocsOn = body.enabled;
      this.allocs = body.allocations;
      this.changed.fire(undefined);
    } catch (e) {
      this.log.appendLine(`memory view: allocations: ${(e as Error).message}`);
    }
  }

  private async openFrame(f: AllocSite): Promise<void> {
    const glob = frameSourceGlob(f);
    const found = glob ? await vscode.workspace.findFiles(glob, undefined, 1) : [];
    if (!found.length) {
      void vscode.window.showInformationMessage(`No source for ${frameText(f)} in the workspace.`);
      return;
    }
    const line = Math.max(0, f.line - 1);
    await vscode.window.showTextDocument(found[0], { selection: new vscode.Range(line, 0, line, 0) });
  }
}
