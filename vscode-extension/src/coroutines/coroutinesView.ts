// The "Coroutines" view in Run and Debug, beside the Call Stack's threads: a
// stopped VM's Kotlin coroutines read page by page with the adapter's
// coroutines request (docs/dap.md), each with its state, dispatcher and
// stack (async frames included) and, where DebugProbes recorded it, the
// stack that created it ("Creation stack"), and where the list comes from
// (DebugProbes, or the stopped threads' coroutines), as the adapter says it. The
// adapter does the work; this file shows it (paging and sessions: the
// PagedSessionView it is).

import * as vscode from 'vscode';
import type { SessionEvents } from '../debug/sessions';
import { views } from '../viewList';
import { PagedSessionView, Row } from '../views/pagedSessionView';
import { CFrame, Coroutine, coroutineLabel, CPage, decodeCoroutines, frameText, stateIcon, summary } from './model';

type Node = { kind: 'coroutine'; c: Coroutine } | { kind: 'creation'; c: Coroutine };

export class CoroutinesView extends PagedSessionView<CPage, Coroutine, CFrame, Node> {
  static readonly viewId = views.coroutines.id;

  constructor(log: vscode.OutputChannel, sessions: SessionEvents<vscode.DebugSession>) {
    super(log, sessions, {
      viewId: CoroutinesView.viewId,
      commands: 'ddmbridge.coroutines',
      request: 'coroutines',
      args: { creationStacks: true },
      decode: decodeCoroutines,
      pageSize: 1000, // the adapter's default page
      what: 'coroutines',
      noSession: 'Start a ddmbridge debug session of a Kotlin program and stop it to see its coroutines.',
      notStopped: 'Coroutines are read when the VM stops.',
    });
  }

  protected merge(items: Coroutine[], p: CPage): void {
    items.push(...p.coroutines);
  }

  protected rows(p: CPage | undefined, coroutines: readonly Coroutine[], loaded: number): (Row<CFrame> | Node)[] {
    if (!p) {
      return [];
    }
    const out: (Row<CFrame> | Node)[] = [{ kind: 'note', text: summary(p, loaded), tooltip: p.note }];
    if (p.note) {
      out.push({ kind: 'note', text: p.note });
    }
    out.push(...coroutines.map((c): Node => ({ kind: 'coroutine', c })));
    return out;
  }

  protected children(n: Node): (Row<CFrame> | Node)[] {
    if (n.kind === 'creation') {
      return (n.c.creationStack ?? []).map((f): Row<CFrame> => ({ kind: 'frame', f }));
    }
    const out: (Row<CFrame> | Node)[] = n.c.frames.map((f): Row<CFrame> => ({ kind: 'frame', f }));
    if (n.c.creationStack?.length) {
      out.push({ kind: 'creation', c: n.c });
    }
    return out;
  }

  protected item(n: Node): vscode.TreeItem {
    if (n.kind === 'creation') {
      const it = new vscode.TreeItem('Creation stack', vscode.TreeItemCollapsibleState.Collapsed);
      it.iconPath = new vscode.ThemeIcon('history');
      it.tooltip = (n.c.creationStack ?? []).map(frameText).join('\n');
      return it;
    }
    const { label, description } = coroutineLabel(n.c);
    const open = n.c.frames.length || n.c.creationStack?.length;
    const it = new vscode.TreeItem(label, open ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    it.description = description;
    it.iconPath = new vscode.ThemeIcon(stateIcon(n.c.state));
    it.tooltip = [`${n.c.name}: ${n.c.state}${n.c.dispatcher ? ` on ${n.c.dispatcher}` : ''}`, ...n.c.frames.map((f) => `  ${frameText(f)}`)].join('\n');
    return it;
  }

  protected frameDescription(f: CFrame): string {
    return [f.source?.name, f.line !== undefined && f.line > 0 ? `line ${f.line}` : ''].filter((s) => s).join(' ');
  }
}
