// The debugger contribution: the configuration providers, the adapter
// descriptor factory (the window's backend, or `ddmbridge dap`), and what a
// failing adapter tells the user.

import * as vscode from 'vscode';
import { BinaryNotFoundError } from '../backend/binary';
import { BackendHost, showLog } from '../backend/host';
import { VMStore } from '../views/vmTree';
import { AdapterFactory, ConfigurationProvider, DynamicConfigurationProvider } from './providers';
import { debugType, SessionEvents } from './sessions';

export function registerDebugger(context: vscode.ExtensionContext, host: BackendHost, store: VMStore, sessions: SessionEvents<vscode.DebugSession>): void {
  const { api, log } = host;
  const adapterFactory = new AdapterFactory({
    api,
    binary: () => {
      try {
        return host.binary();
      } catch (e) {
        if (e instanceof BinaryNotFoundError) {
          host.showBinaryError(e.message);
        }
        throw e;
      }
    },
    log,
    logArgs: host.logArgs,
    onBinaryProblem: (m) => host.showBinaryError(m),
  });
  context.subscriptions.push(
    vscode.debug.registerDebugConfigurationProvider(debugType, new ConfigurationProvider(store, api)),
    vscode.debug.registerDebugConfigurationProvider(debugType, new DynamicConfigurationProvider(store), vscode.DebugConfigurationProviderTriggerKind.Dynamic),
    vscode.debug.registerDebugAdapterDescriptorFactory(debugType, adapterFactory),
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
}
