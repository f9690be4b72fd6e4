// The "Virtual Threads" view in Run and Debug: a stopped JDK 21+ VM's
// virtual threads grouped by identical stack, read page by page with the
// adapter's virtualThreads request (docs/dap.md). The threads request lists
// the platform threads and the ones met at events and stops; this view
// shows the rest, as IntelliJ groups them. The adapter does the work; this
// file shows it (paging and sessions: the PagedSessionView it is).

import * as vscode from 'vscode';
import type { SessionEvents } from '../debug/sessions';
import { views } from '../viewList';
import { PagedSessionView, Row } from '../views/pagedSessionView';
import { decodeVirtualThreads, groupLabel, mergeGroups, summary, VFrame, VGroup, VPage } from './model';

type Node = { kind: 'group'; g: VGroup } | { kind: 'thread'; t: { id: number; name: string } };

export class VirtualThreadsView extends PagedSessionView<VPage, VGroup, VFrame, Node> {
  static readonly viewId = views.virtualThreads.id;

  constructor(log: vscode.OutputChannel, sessions: SessionEvents<vscode.DebugSession>) {
    super(log, sessions, {
      viewId: VirtualThreadsView.viewId,
      commands: 'ddmbridge.virtualThreads',
      request: 'virtualThreads',
      decode: decodeVirtualThreads,
      pageSize: 4000,
      what: 'virtual threads',
      noSession: 'Start a ddmbridge debug session of a JDK 21+ VM and stop it to see its virtual threads.',
      notStopped: 'Virtual threads are read when the VM stops.',
    });
  }

  /** Merges a page's groups into those read (a stack's threads may span pages). */
  protected merge(groups: VGroup[], p: VPage): void {
    mergeGroups(groups, p.groups);
  }

  protected rows(p: VPage | undefined, groups: readonly VGroup[], loaded: number): (Row<VFrame> | Node)[] {
    if (!p || p.total === 0) {
      return [{ kind: 'note', text: 'No virtual threads (the VM has none, or is older than JDK 21).' }];
    }
    return [{ kind: 'note', text: summary(p, loaded) }, ...groups.map((g): Node => ({ kind: 'group', g }))];
  }

  protected children(n: Node): (Row<VFrame> | Node)[] {
    if (n.kind !== 'group') {
      return [];
    }
    return [...n.g.frames.map((f): Row<VFrame> => ({ kind: 'frame', f })), ...n.g.threads.map((t): Node => ({ kind: 'thread', t }))];
  }

  protected item(n: Node): vscode.TreeItem {
    if (n.kind === 'thread') {
      const it = new vscode.TreeItem(n.t.name);
      it.iconPath = new vscode.ThemeIcon('debug-thread');
      return it;
    }
    const { label, description } = groupLabel(n.g);
    const it = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.Collapsed);
    it.description = description;
    it.iconPath = new vscode.ThemeIcon('layers');
    it.tooltip = n.g.frames.map((f) => `${f.name}${f.line ? `:${f.line}` : ''}`).join('\n');
    return it;
  }

  protected frameDescription(f: VFrame): string | undefined {
    return f.line ? `line ${f.line}` : undefined;
  }
}
