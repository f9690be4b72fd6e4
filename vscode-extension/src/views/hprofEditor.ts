// The HPROF editor: `.hprof` files open in a read-only custom editor showing
// the class histogram (with retained sizes), why objects are alive (the
// paths from the GC roots, incoming references, a class's instances), the
// dominator tree, the heap map and a diff against another dump. The backend parses the file (hprof/* methods, docs/rpc.md);
// the webview (webview/hprofView) renders what it answers.

import * as vscode from 'vscode';
import { ControlApi } from '../backend/api';
import { errorText } from '../ddmHub';
import { views } from '../viewList';
import type { FromWebview, ToWebview } from '../webview/messages';
import { webviewOptions, webviewPage } from './webviews';

class HprofDocument implements vscode.CustomDocument {
  constructor(readonly uri: vscode.Uri) {}
  dispose(): void {}
}

export class HprofEditorProvider implements vscode.CustomReadonlyEditorProvider<HprofDocument> {
  static readonly viewType = views.hprof.id;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly api: ControlApi,
    private readonly log: vscode.OutputChannel,
  ) {}

  openCustomDocument(uri: vscode.Uri): HprofDocument {
    return new HprofDocument(uri);
  }

  resolveCustomEditor(doc: HprofDocument, panel: vscode.WebviewPanel): void {
    const webview = panel.webview;
    webview.options = webviewOptions(this.extensionUri);
    webview.html = webviewPage(webview, this.extensionUri, 'hprof');
    const path = doc.uri.fsPath;
    const send = (m: ToWebview): void => {
      void webview.postMessage(m);
    };
    const name = vscode.workspace.asRelativePath(doc.uri);
    // The backend's hprof/progress notifications for this dump go to the
    // webview (how far the reading, the parse, the tree are).
    const unsubscribe = this.api.onHprofProgress((p) => {
      if ((p as { path?: unknown } | undefined)?.path === path) {
        send({ type: 'progress', body: p });
      }
    });
    let pending = 0;
    let cancelled = false;
    /** Runs a backend call, with progress in the status bar, and posts its answer. */
    const run = (what: string, call: () => Promise<ToWebview>): Thenable<void> =>
      vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `${what} of ${name}` }, async () => {
        pending++;
        try {
          send(await call());
        } catch (e) {
          if (cancelled && /context canceled/.test(errorText(e))) {
            send({ type: 'stopped', message: `${what} of ${name}: stopped.` });
            return;
          }
          this.log.appendLine(`${what} of ${name}: ${errorText(e)}`);
          send({ type: 'error', message: `${what} of ${name}: ${errorText(e)}` });
        } finally {
          pending--;
        }
      });
    const sub = webview.onDidReceiveMessage((m: FromWebview) => {
      if (m.type !== 'cancel') {
        cancelled = false;
      }
      switch (m.type) {
        case 'ready':
          send({ type: 'status', message: `Reading ${name}…` });
          // The histogram first, from one pass over the file (seconds for
          // gigabytes); the webview then asks for what needs the model.
          void run('Histogram', async () => ({ type: 'summary', body: await this.api.hprofSummary(path, true) }));
          break;
        case 'cancel':
          cancelled = true;
          void this.api.hprofCancel(path).catch((e: unknown) => this.log.appendLine(`Cancel of ${name}: ${errorText(e)}`));
          break;
        case 'dominators':
          void run('Dominator tree', async () => ({ type: 'dominators', body: await this.api.hprofDominators(path, m.object) }));
          break;
        case 'paths':
          void run('Paths to GC roots', async () => ({ type: 'paths', body: await this.api.hprofPaths(path, m.object !== undefined ? { object: m.object } : { class: m.class }) }));
          break;
        case 'incoming':
          void run('Incoming references', async () => ({ type: 'incoming', body: await this.api.hprofIncoming(path, m.object, m.offset) }));
          break;
        case 'instances':
          void run('Instances', async () => ({ type: 'instances', body: await this.api.hprofInstances(path, m.class, m.offset) }));
          break;
        case 'retained':
          void run('Retained sizes', async () => ({ type: 'retained', body: await this.api.hprofRetained(path) }));
          break;
        case 'heapMap':
          void run('Heap map', async () => ({ type: 'heapMap', body: await this.api.hprofHeapMap(path) }));
          break;
        case 'pickBase':
          void (async () => {
            const picked = await vscode.window.showOpenDialog({
              canSelectMany: false,
              defaultUri: vscode.Uri.joinPath(doc.uri, '..'),
              filters: { 'HPROF heap dump': ['hprof'] },
              openLabel: 'Compare',
              title: `Compare ${name} with an earlier dump`,
            });
            if (picked?.[0]) {
              await run('Diff', async () => ({ type: 'diff', body: await this.api.hprofDiff(path, picked[0].fsPath) }));
            }
          })();
          break;
      }
    });
    panel.onDidDispose(() => {
      sub.dispose();
      unsubscribe();
      if (pending > 0) {
        // Closed while the dump is read: stop reading it.
        void this.api.hprofCancel(path).catch(() => undefined);
      }
    });
  }
}
