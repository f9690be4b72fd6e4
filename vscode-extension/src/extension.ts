// Entry point: one backend per window, the debugger contribution, the VM
// explorer and the DDM views. Protocol logic lives in the Go backend; data
// shaping in the vscode-free modules next to this file.

import * as vscode from 'vscode';
import { ControlApi, hprofFileName } from './backend/api';
import { BinaryNotFoundError, resolveBinary } from './backend/binary';
import { Backend, BackendOptions } from './backend/rpc';
import { DdmHub, errorText } from './ddmHub';
import { formatBytes } from './heap/heapmap';
import { HotCodeReplacer } from './debug/hotCodeReplace';
import { SessionTracker } from './debug/sessions';
import { MemoryView } from './memory/memoryView';
import { VirtualThreadsView } from './vthreads/virtualThreadsView';
import { AdapterFactory, ConfigurationProvider, DynamicConfigurationProvider, pickJavaHome, pickJavaProcess, pickVM } from './debug/providers';
import { VMStore, VMTreeProvider, vmFromArg } from './views/vmTree';
import { HprofEditorProvider } from './views/hprofEditor';
import { HeapPanel, ThreadsViewProvider } from './views/webviews';
import { views } from './viewList';
import { VMInfo, vmLabel, vmTitle } from './vms';

const openSetting = 'Open Setting';
const showLog = 'Show Log';

export interface DdmbridgeApi {
  backend: Backend;
  api: ControlApi;
  store: VMStore;
  hub: DdmHub;
}

export function activate(context: vscode.ExtensionContext): DdmbridgeApi {
  const log = vscode.window.createOutputChannel('ddmbridge');
  context.subscriptions.push(log);

  const settings = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('ddmbridge');

  /** The binary to run; throws BinaryNotFoundError with what to do. */
  const binary = (): string =>
    resolveBinary({
      setting: settings().get<string>('path', ''),
      extensionPath: context.extensionPath,
      envPath: process.env.PATH ?? '',
    }).path;

  const logArgs = (): string[] => {
    const args = ['--log-level', settings().get<string>('logLevel', 'info')];
    const trace = settings().get<string>('trace', '');
    if (trace) {
      args.push('--trace', trace);
    }
    return args;
  };

  const backendOptions = (): BackendOptions => ({
    binary: binary(),
    args: settings().get<string[]>('serveArgs', []),
    logLevel: settings().get<string>('logLevel', 'info'),
    trace: settings().get<string>('trace', '') || undefined,
    cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
  });

  // Options are read from the settings at every (re)start.
  const backend = new Backend(backendOptions);
  const api = new ControlApi(backend);
  backend.on('log', (line: string) => log.appendLine(line));
  let lastFailure = '';
  backend.on('state', (s: string, detail?: string) => {
    log.appendLine(`[backend] ${s}${detail ? `: ${detail}` : ''}`);
    if (s === 'failed' && detail && detail !== lastFailure) {
      lastFailure = detail;
      showBinaryError(detail.startsWith('The ddmbridge binary') || detail.startsWith('"ddmbridge.path"') ? detail : `ddmbridge backend failed: ${detail}`);
    }
    if (s === 'running') {
      lastFailure = '';
    }
  });
  context.subscriptions.push({ dispose: () => void backend.stop() });

  const store = new VMStore(api, log);
  const hub = new DdmHub(
    api,
    (line) => log.appendLine(line),
    (id) => {
      const vm = store.find(id);
      return vm ? vmTitle(vm) : undefined;
    },
    (id) => store.find(id)?.ddm,
  );
  const tree = new VMTreeProvider(store);
  context.subscriptions.push(store, hub, tree);
  // One tracker follows the ddmbridge debug sessions for every view.
  const sessions = new SessionTracker(vscode.debug);
  context.subscriptions.push(sessions, hub.follow(sessions));
  context.subscriptions.push(
    sessions.onDidFail(({ session, error, code, signal }) => {
      if (error) {
        log.appendLine(`session "${session.name}": adapter error: ${error.message}`);
        return;
      }
      log.appendLine(`session "${session.name}": adapter exited (${signal ?? `code ${code}`})`);
      void vscode.window
        .showErrorMessage(`ddmbridge: the debug adapter of "${session.name}" stopped unexpectedly (${signal ?? `exit code ${code}`}).`, showLog)
        .then((a) => a === showLog && log.show());
    }),
  );

  const treeView = vscode.window.createTreeView(views.vms.id, { treeDataProvider: tree, showCollapseAll: false });
  context.subscriptions.push(treeView);

  /** Starts the backend (again), reconfigured from the settings. */
  const startBackend = async (restart = false): Promise<boolean> => {
    try {
      await (restart ? backend.restart() : backend.start());
      return true;
    } catch (e) {
      // A failed start has already been reported through the 'failed' state.
      log.appendLine(`backend: ${errorText(e)}`);
      return false;
    }
  };

  // The explorer starts the backend when it is first shown; so does any command or debug session.
  if (treeView.visible) {
    void startBackend();
  }
  context.subscriptions.push(
    treeView.onDidChangeVisibility((e) => {
      if (e.visible && backend.state === 'stopped') {
        void startBackend();
      }
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('ddmbridge.path') || e.affectsConfiguration('ddmbridge.serveArgs') || e.affectsConfiguration('ddmbridge.logLevel') || e.affectsConfiguration('ddmbridge.trace')) {
        if (backend.state !== 'stopped') {
          void startBackend(true);
        }
      }
    }),
  );

  // Debugger contribution.
  const adapterFactory = new AdapterFactory({
    api,
    binary: () => {
      try {
        return binary();
      } catch (e) {
        if (e instanceof BinaryNotFoundError) {
          showBinaryError(e.message);
        }
        throw e;
      }
    },
    log,
    logArgs,
    onBinaryProblem: (m) => showBinaryError(m),
  });
  context.subscriptions.push(
    vscode.debug.registerDebugConfigurationProvider('ddmbridge', new ConfigurationProvider(store, api)),
    vscode.debug.registerDebugConfigurationProvider(
      'ddmbridge',
      new DynamicConfigurationProvider(store),
      vscode.DebugConfigurationProviderTriggerKind.Dynamic,
    ),
    vscode.debug.registerDebugAdapterDescriptorFactory('ddmbridge', adapterFactory),
  );

  context.subscriptions.push(new HotCodeReplacer(log, sessions));
  context.subscriptions.push(new MemoryView(log, sessions));
  context.subscriptions.push(new VirtualThreadsView(log, sessions));

  // Views.
  context.subscriptions.push(
    vscode.window.registerWebviewViewProvider(ThreadsViewProvider.viewType, new ThreadsViewProvider(context.extensionUri, hub, (id) => api.threadDump(id))),
    vscode.window.registerCustomEditorProvider(HprofEditorProvider.viewType, new HprofEditorProvider(context.extensionUri, api, log), {
      webviewOptions: { retainContextWhenHidden: true },
    }),
  );

  const withVM = async (arg: unknown, what: string): Promise<VMInfo | undefined> => {
    let vm = vmFromArg(arg, store);
    if (!vm && hub.currentVMId) {
      vm = store.find(hub.currentVMId);
    }
    if (!vm) {
      if (!(await startBackend())) {
        return undefined;
      }
      const id = await pickVM(store, what);
      vm = id ? store.find(id) : undefined;
    }
    return vm;
  };

  const command = (name: string, fn: (...args: unknown[]) => unknown): void => {
    context.subscriptions.push(
      vscode.commands.registerCommand(name, async (...args: unknown[]) => {
        try {
          return await fn(...args);
        } catch (e) {
          if (!(e instanceof BinaryNotFoundError)) {
            void vscode.window.showErrorMessage(`ddmbridge: ${errorText(e)}`, showLog).then((a) => a === showLog && log.show());
          }
          return undefined;
        }
      }),
    );
  };

  command('ddmbridge.pickVM', async () => {
    if (!(await startBackend())) {
      return undefined;
    }
    return pickVM(store);
  });
  command('ddmbridge.pickJavaProcess', async () => {
    if (!(await startBackend())) {
      return undefined;
    }
    return pickJavaProcess(api);
  });
  command('ddmbridge.pickJavaHome', async () => {
    if (!(await startBackend())) {
      return undefined;
    }
    return pickJavaHome(api);
  });
  command('ddmbridge.refreshVMs', async () => {
    if (await startBackend()) {
      await store.refresh();
    }
  });
  command('ddmbridge.focusVM', async (arg) => {
    const pick = typeof arg === 'object' && arg !== null && (arg as { pick?: boolean }).pick === true;
    const vm = pick
      ? await startBackend().then(async (ok) => (ok ? store.find((await pickVM(store, 'Show which VM?')) ?? '') : undefined))
      : await withVM(arg, 'Show which VM?');
    if (vm) {
      hub.focusVM(vm);
    }
  });
  command('ddmbridge.setCurrentVM', async (arg) => {
    const vm = await withVM(arg, 'Make which VM current?');
    if (vm) {
      await api.selectVM(vm.id);
      await store.refresh();
      vscode.window.setStatusBarMessage(`ddmbridge: ${vmLabel(vm)} is the current VM (port 8700)`, 4000);
    }
  });
  command('ddmbridge.attachVM', async (arg) => {
    const vm = await withVM(arg, 'Attach to which VM?');
    if (vm) {
      await vscode.debug.startDebugging(vscode.workspace.workspaceFolders?.[0], {
        type: 'ddmbridge',
        request: 'attach',
        name: `Attach to ${vmLabel(vm)}`,
        vm: vm.id,
      });
    }
  });
  command('ddmbridge.causeGC', async (arg) => {
    const vm = await withVM(arg, 'Collect garbage in which VM?');
    if (vm) {
      await api.gc(vm.id);
      vscode.window.setStatusBarMessage(`ddmbridge: GC done in ${vmLabel(vm)}`, 4000);
      if (hub.currentVMId === vm.id) {
        await hub.refresh(['heapInfo', 'heapMap']);
      }
    }
  });
  command('ddmbridge.dumpHeap', async (arg) => {
    const vm = await withVM(arg, 'Dump the heap of which VM?');
    if (!vm) {
      return;
    }
    const dir = vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(context.globalStorageUri.fsPath);
    const target = await vscode.window.showSaveDialog({
      defaultUri: vscode.Uri.joinPath(dir, hprofFileName(vm)),
      filters: { 'HPROF heap dump': ['hprof'] },
      title: `Dump the heap of ${vmLabel(vm)}`,
    });
    if (!target) {
      return;
    }
    const dump = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Dumping the heap of ${vmLabel(vm)}…` },
      () => api.dumpHeap(vm.id, target.fsPath),
    );
    if (dump) {
      vscode.window.setStatusBarMessage(`ddmbridge: heap of ${vmLabel(vm)} (${formatBytes(dump.bytes)}) written to ${dump.path}`, 6000);
      await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(dump.path), HprofEditorProvider.viewType);
    } else {
      void vscode.window.showWarningMessage('This ddmbridge backend cannot write HPROF dumps yet; showing the heap map instead.');
      hub.focusVM(vm);
      HeapPanel.show(context.extensionUri, hub);
    }
  });
  command('ddmbridge.showHeap', async (arg) => {
    const vm = vmFromArg(arg, store);
    if (vm) {
      hub.focusVM(vm);
    } else if (!hub.current) {
      const picked = await withVM(undefined, 'Show the heap of which VM?');
      if (!picked) {
        return;
      }
      hub.focusVM(picked);
    }
    HeapPanel.show(context.extensionUri, hub);
  });
  command('ddmbridge.showThreads', async (arg) => {
    const vm = vmFromArg(arg, store);
    if (vm) {
      hub.focusVM(vm);
    }
    await vscode.commands.executeCommand(`${views.threads.id}.focus`);
  });
  command('ddmbridge.restartBackend', async () => {
    if (await startBackend(true)) {
      vscode.window.setStatusBarMessage('ddmbridge: backend restarted', 3000);
    }
  });
  command('ddmbridge.showLog', () => log.show());

  function showBinaryError(message: string): void {
    void vscode.window.showErrorMessage(message, openSetting, showLog).then((a) => {
      if (a === openSetting) {
        void vscode.commands.executeCommand('workbench.action.openSettings', 'ddmbridge.path');
      } else if (a === showLog) {
        log.show();
      }
    });
  }

  return { backend, api, store, hub };
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
