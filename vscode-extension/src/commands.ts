// The extension's commands (package.json "commands"): picking, showing and
// acting on VMs, the heap map, dumps, the backend. Each reports its failure
// in words with the log one click away.

import * as vscode from 'vscode';
import { hprofFileName } from './backend/api';
import { BinaryNotFoundError } from './backend/binary';
import { BackendHost, showLog } from './backend/host';
import { DdmHub, errorText } from './ddmHub';
import { pickJavaHome, pickJavaProcess, pickVM } from './debug/providers';
import { formatBytes } from './heap/heapmap';
import { views } from './viewList';
import { HprofEditorProvider } from './views/hprofEditor';
import { VMStore, vmFromArg } from './views/vmTree';
import { HeapPanel } from './views/webviews';
import { VMInfo, vmLabel } from './vms';

export function registerCommands(context: vscode.ExtensionContext, host: BackendHost, store: VMStore, hub: DdmHub): void {
  const { api } = host;
  const withVM = async (arg: unknown, what: string): Promise<VMInfo | undefined> => {
    let vm = vmFromArg(arg, store);
    if (!vm && hub.currentVMId) {
      vm = store.find(hub.currentVMId);
    }
    if (!vm) {
      if (!(await host.start())) {
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
            void vscode.window.showErrorMessage(`ddmbridge: ${errorText(e)}`, showLog).then((a) => a === showLog && host.log.show());
          }
          return undefined;
        }
      }),
    );
  };

  command('ddmbridge.pickVM', async () => {
    if (!(await host.start())) {
      return undefined;
    }
    return pickVM(store);
  });
  command('ddmbridge.pickJavaProcess', async () => {
    if (!(await host.start())) {
      return undefined;
    }
    return pickJavaProcess(api);
  });
  command('ddmbridge.pickJavaHome', async () => {
    if (!(await host.start())) {
      return undefined;
    }
    return pickJavaHome(api);
  });
  command('ddmbridge.refreshVMs', async () => {
    if (await host.start()) {
      await store.refresh();
    }
  });
  command('ddmbridge.focusVM', async (arg) => {
    const pick = typeof arg === 'object' && arg !== null && (arg as { pick?: boolean }).pick === true;
    const vm = pick
      ? await host.start().then(async (ok) => (ok ? store.find((await pickVM(store, 'Show which VM?')) ?? '') : undefined))
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
    if (await host.start(true)) {
      vscode.window.setStatusBarMessage('ddmbridge: backend restarted', 3000);
    }
  });
  command('ddmbridge.showLog', () => host.log.show());
}
