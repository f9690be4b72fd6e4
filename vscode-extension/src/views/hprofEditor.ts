// The HPROF editor: `.hprof` files open in a read-only custom editor showing
// the class histogram (with retained sizes), why objects are alive (the
// paths from the GC roots, incoming references, a class's instances), the
// dominator tree, the heap map and a diff against another dump. The backend parses the file (hprof/* methods, docs/rpc.md);
// the webview (webview/hprofView) renders what it answers.

import * as vscode from 'vscode';
import { ControlApi } from '../backend/api';
import { errorText } from '../ddmHub';
import { HprofRequests } from '../heap/hprofRequests';
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
    // While a diff runs, the earlier dump's reading too.
    let base: string | undefined;
    const unsubscribe = this.api.onHprofProgress((p) => {
      const of = (p as { path?: unknown } | undefined)?.path;
      if (of === path || (base !== undefined && of === base)) {
        send({ type: 'progress', body: p });
      }
    });
    // Which requests the user's Cancel reached: they say "stopped", whatever
    // the webview asks meanwhile.
    const requests = new HprofRequests();
    /** Runs a backend call, with progress in the status bar, and posts its answer. */
    const run = (what: string, call: () => Promise<ToWebview>): Thenable<void> =>
      vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `${what} of ${name}` }, async () => {
        const r = requests.start();
        try {
          send(await call());
        } catch (e) {
          if (requests.stopped(r, errorText(e))) {
            send({ type: 'stopped', message: `${what} of ${name}: stopped.` });
            return;
          }
          this.log.appendLine(`${what} of ${name}: ${errorText(e)}`);
          send({ type: 'error', message: `${what} of ${name}: ${errorText(e)}` });
        } finally {
          requests.end(r);
        }
      });
    const sub = webview.onDidReceiveMessage((m: FromWebview) => {
      switch (m.type) {
        case 'ready':
        case 'summary':
          send({ type: 'status', message: `Reading ${name}…` });
          // The histogram first, from one pass over the file (seconds for
          // gigabytes); the webview then asks for what needs the model.
          void run('Histogram', async () => ({ type: 'summary', body: await this.api.hprofSummary(path, true) }));
          break;
        case 'cancel': {
          const answered = requests.cancel();
          const paths = base !== undefined ? [path, base] : [path];
          void Promise.all(
            paths.map((p) => this.api.hprofCancel(p).catch((e: unknown) => this.log.appendLine(`Cancel of ${p}: ${errorText(e)}`))),
          ).finally(answered);
          break;
        }
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
              base = picked[0].fsPath;
              try {
                await run('Diff', async () => ({ type: 'diff', body: await this.api.hprofDiff(path, picked[0].fsPath) }));
              } finally {
                base = undefined;
              }
            }
          })();
          break;
      }
    });
    panel.onDidDispose(() => {
      sub.dispose();
      unsubscribe();
      if (requests.pending > 0) {
        // Closed while the dump is read: stop reading it.
        void this.api.hprofCancel(path).catch(() => undefined);
      }
    });
  }
}
