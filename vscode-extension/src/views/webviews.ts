// The DDM webviews: the Threads view (a panel view) and the Heap map (an
// editor panel), following the DdmHub; and the page every webview of the
// view list (src/viewList.ts) is served in.

import * as vscode from 'vscode';
import { DdmHub, errorText } from '../ddmHub';
import { makeNonce, webviewHtml } from '../webview/html';
import type { FromWebview, ToWebview } from '../webview/messages';
import type { DdmKind } from '../ddmProtocol';
import { DdmViewName, views, WebviewName, webviewScript } from '../viewList';

/** The page of a webview of the view list: the shared HTML shell, its script and the style sheet. */
export function webviewPage(webview: vscode.Webview, extensionUri: vscode.Uri, view: WebviewName): string {
  return webviewHtml({
    title: views[view].title,
    cspSource: webview.cspSource,
    nonce: makeNonce(),
    scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'out', 'webview', webviewScript(view))).toString(),
    styleUri: webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'webview.css')).toString(),
    view,
  });
}

/** What a webview may load: the bundled scripts and the media folder. */
export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'out', 'webview'), vscode.Uri.joinPath(extensionUri, 'media')],
  };
}

/** Wires a webview to the hub: target changes and the DDM data its view shows (the view list's ddm), and its buttons. */
function connect(webview: vscode.Webview, hub: DdmHub, view: DdmViewName, onMessage: (m: FromWebview) => void): vscode.Disposable {
  const kinds: readonly DdmKind[] = views[view].ddm;
  const send = (m: ToWebview): void => {
    void webview.postMessage(m);
  };
  const subs = [
    hub.onDidChangeTarget((vm) => send({ type: 'vm', vm })),
    hub.onDidReceive(({ kind, body }) => {
      if (kinds.includes(kind)) {
        send({ type: kind, body });
      }
    }),
    hub.onDidFail((message) => send({ type: 'error', message })),
    hub.onDidFindNoDdm((message) => kinds.includes('heapMap') && send({ type: 'noDdm', message })),
    webview.onDidReceiveMessage((m: FromWebview) => {
      if (m.type === 'ready') {
        send({ type: 'vm', vm: hub.current });
        const noDdm = hub.noDdm;
        if (noDdm && kinds.includes('heapMap')) {
          send({ type: 'noDdm', message: noDdm });
        }
        for (const k of kinds) {
          const body = hub.last(k);
          if (body !== undefined) {
            send({ type: k, body });
          }
        }
      }
      onMessage(m);
    }),
  ];
  return vscode.Disposable.from(...subs);
}

export class ThreadsViewProvider implements vscode.WebviewViewProvider {
  static readonly viewType = views.threads.id;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly hub: DdmHub,
    /** vm/threadDump of a monitored VM (the backend's control API). */
    private readonly threadDump: (id: string) => Promise<unknown>,
  ) {}

  /** Asks the backend for the shown VM's JSON thread dump and hands it to the view. */
  private async dump(webview: vscode.Webview): Promise<void> {
    const send = (m: ToWebview): void => void webview.postMessage(m);
    const id = this.hub.currentVMId;
    if (!id) {
      send({ type: 'error', message: 'A thread dump is taken through the monitor: pick a VM it watches (the VMs view).' });
      return;
    }
    send({ type: 'status', message: 'Taking a thread dump…' });
    try {
      send({ type: 'threadDump', body: await this.threadDump(id) });
    } catch (e) {
      send({ type: 'error', message: `Thread dump: ${errorText(e)}` });
    }
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    view.webview.options = webviewOptions(this.extensionUri);
    view.webview.html = webviewPage(view.webview, this.extensionUri, 'threads');
    const sub = connect(view.webview, this.hub, 'threads', (m) => {
      if (m.type === 'refresh') {
        void this.hub.refresh(['threads']);
      } else if (m.type === 'pickVM') {
        void vscode.commands.executeCommand('ddmbridge.focusVM', { pick: true });
      } else if (m.type === 'threadDump') {
        void this.dump(view.webview);
      }
    });
    let visible = view.visible;
    if (visible) {
      this.hub.watch('threads', 1);
    }
    const vis = view.onDidChangeVisibility(() => {
      if (view.visible !== visible) {
        visible = view.visible;
        this.hub.watch('threads', visible ? 1 : -1);
      }
    });
    view.onDidDispose(() => {
      if (visible) {
        this.hub.watch('threads', -1);
      }
      sub.dispose();
      vis.dispose();
    });
  }
}

export class HeapPanel {
  static readonly viewType = views.heap.id;
  private static panel?: vscode.WebviewPanel;

  /** Opens (or reveals) the heap map of whatever the hub shows. */
  static show(extensionUri: vscode.Uri, hub: DdmHub): vscode.WebviewPanel {
    if (HeapPanel.panel) {
      HeapPanel.panel.reveal(undefined, false);
      void hub.refresh(['heapInfo', 'heapMap']);
      return HeapPanel.panel;
    }
    const panel = vscode.window.createWebviewPanel(
      HeapPanel.viewType,
      views.heap.title,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
      { ...webviewOptions(extensionUri), retainContextWhenHidden: true },
    );
    HeapPanel.panel = panel;
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'ddmbridge.svg');
    panel.webview.html = webviewPage(panel.webview, extensionUri, 'heap');
    const setTitle = (): void => {
      panel.title = hub.current ? `Heap: ${hub.current.name}` : 'Heap map';
    };
    setTitle();
    const sub = connect(panel.webview, hub, 'heap', (m) => {
      if (m.type === 'gc') {
        hub.gc().catch((e) => void panel.webview.postMessage({ type: 'error', message: `GC: ${errorText(e)}` }));
      } else if (m.type === 'refresh') {
        void hub.refresh(['heapInfo', 'heapMap'], true);
      } else if (m.type === 'dumpHeap') {
        void vscode.commands.executeCommand('ddmbridge.dumpHeap');
      }
    });
    const titleSub = hub.onDidChangeTarget(setTitle);
    hub.watch('heap', 1);
    panel.onDidDispose(() => {
      hub.watch('heap', -1);
      sub.dispose();
      titleSub.dispose();
      HeapPanel.panel = undefined;
    });
    return panel;
  }
}
