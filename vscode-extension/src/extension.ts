// Entry point: wires one backend per window, the debugger contribution, the
// session tracker, the VM explorer, the views and the commands. Protocol logic
// lives in the Go backend; data shaping in the vscode-free modules; each piece
// of wiring in its own module (backend/host, debug/contribution, commands).

import * as vscode from 'vscode';
import { ControlApi } from './backend/api';
import { BackendHost, hostBackend } from './backend/host';
import { Backend } from './backend/rpc';
import { registerCommands } from './commands';
import { DdmHub } from './ddmHub';
import { registerDebugger } from './debug/contribution';
import { HotCodeReplacer } from './debug/hotCodeReplace';
import { SessionTracker } from './debug/sessions';
import { MemoryView } from './memory/memoryView';
import { views } from './viewList';
import { HprofEditorProvider } from './views/hprofEditor';
import { VMStore, VMTreeProvider } from './views/vmTree';
import { ThreadsViewProvider } from './views/webviews';
import { scanWelcome, vmTitle } from './vms';
import { VirtualThreadsView } from './vthreads/virtualThreadsView';
import { CoroutinesView } from './coroutines/coroutinesView';

export interface DdmbridgeApi {
  backend: Backend;
  api: ControlApi;
  store: VMStore;
  hub: DdmHub;
}

export function activate(context: vscode.ExtensionContext): DdmbridgeApi {
  const log = vscode.window.createOutputChannel('ddmbridge');
  context.subscriptions.push(log);
  const host = hostBackend(context, log);
  const { backend, api } = host;

  const store = new VMStore(api, log);
  const vmName = (id: string): string | undefined => {
    const vm = store.find(id);
    return vm ? vmTitle(vm) : undefined;
  };
  const hub = new DdmHub(api, (line) => log.appendLine(line), vmName, (id) => store.find(id)?.ddm);
  // One tracker follows the ddmbridge debug sessions for every view.
  const sessions = new SessionTracker(vscode.debug);
  context.subscriptions.push(store, hub, sessions, hub.follow(sessions));

  showVMExplorer(context, host, store);
  registerDebugger(context, host, store, sessions);
  context.subscriptions.push(
    new HotCodeReplacer(log, sessions),
    new MemoryView(log, sessions),
    new VirtualThreadsView(log, sessions),
    new CoroutinesView(log, sessions),
    vscode.window.registerWebviewViewProvider(ThreadsViewProvider.viewType, new ThreadsViewProvider(context.extensionUri, hub, (id) => api.threadDump(id))),
    vscode.window.registerCustomEditorProvider(HprofEditorProvider.viewType, new HprofEditorProvider(context.extensionUri, api, log), {
      webviewOptions: { retainContextWhenHidden: true },
    }),
  );
  registerCommands(context, host, store, hub);

  return { backend, api, store, hub };
}

/** The VM explorer; it starts the backend when first shown (so does any command or debug session). */
function showVMExplorer(context: vscode.ExtensionContext, host: BackendHost, store: VMStore): void {
  const tree = new VMTreeProvider(store);
  const treeView = vscode.window.createTreeView(views.vms.id, { treeDataProvider: tree, showCollapseAll: false });
  if (treeView.visible) {
    void host.start();
  }
  // The empty explorer says which ports are scanned: serveArgs' --scan, not always the default range.
  const showScan = (): void => {
    const w = scanWelcome(vscode.workspace.getConfiguration('ddmbridge').get<string[]>('serveArgs', []));
    void vscode.commands.executeCommand('setContext', 'ddmbridge.scan', w.mode);
    treeView.message = store.vms.length === 0 ? w.message : undefined;
  };
  showScan();
  context.subscriptions.push(
    tree,
    treeView,
    treeView.onDidChangeVisibility((e) => {
      if (e.visible && host.backend.state === 'stopped') {
        void host.start();
      }
    }),
    store.onDidChange(() => showScan()),
    vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('ddmbridge.serveArgs') && showScan()),
  );
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
