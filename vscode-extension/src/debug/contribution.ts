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
    openDebugViewBeforeFirstBreak(sessions),
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

/**
 * VS Code expands the stopped thread in Call Stack and the first cheap
 * scope (Locals) in Variables only in views that exist when it focuses the
 * stop. With "debug.openDebug": "openOnDebugBreak" it opens Run and Debug
 * after focusing the first breakpoint stop, so views created then show the
 * stopped thread collapsed and Locals closed (a Call Stack view created
 * while stopped refreshes without selecting). The tracker sees the stopped
 * event before VS Code does: opening Run and Debug then (what the setting
 * asks for at that stop anyway) makes the views exist in time. Once per
 * window: the views stay once created.
 */
function openDebugViewBeforeFirstBreak(sessions: SessionEvents<vscode.DebugSession>): vscode.Disposable {
  let done = false;
  return sessions.onDidStop(({ body }) => {
    const reason = (body as { reason?: unknown } | undefined)?.reason;
    if (done || reason !== 'breakpoint' || vscode.workspace.getConfiguration('debug').get('openDebug') !== 'openOnDebugBreak') {
      return;
    }
    done = true;
    void vscode.commands.executeCommand('workbench.view.debug');
  });
}
