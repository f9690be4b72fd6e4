// The window's backend as the extension hosts it: one `ddmbridge serve
// --stdio` (backend/rpc) configured from the settings at every (re)start,
// its log in the "ddmbridge" output channel, a failure said once with what
// to do, and a restart when a setting it depends on changes.

import * as vscode from 'vscode';
import { ControlApi } from './api';
import { resolveBinary } from './binary';
import { Backend } from './rpc';
import { errorText } from '../ddmHub';

const openSetting = 'Open Setting';
export const showLog = 'Show Log';

export interface BackendHost {
  readonly backend: Backend;
  readonly api: ControlApi;
  readonly log: vscode.OutputChannel;
  /** The binary to run; throws BinaryNotFoundError with what to do. */
  binary(): string;
  /** The log arguments of a stand-alone `ddmbridge dap` (the settings'). */
  logArgs(): string[];
  /** Starts the backend (again, reconfigured from the settings); false when it failed (already reported). */
  start(restart?: boolean): Promise<boolean>;
  /** Says a problem with the binary, offering its setting and the log. */
  showBinaryError(message: string): void;
}

/** The settings that make a running backend restart. */
const backendSettings = ['ddmbridge.path', 'ddmbridge.serveArgs', 'ddmbridge.logLevel', 'ddmbridge.trace'];

export function hostBackend(context: vscode.ExtensionContext, log: vscode.OutputChannel): BackendHost {
  const settings = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('ddmbridge');
  const binary = (): string =>
    resolveBinary({
      setting: settings().get<string>('path', ''),
      extensionPath: context.extensionPath,
      envPath: process.env.PATH ?? '',
    }).path;

  // Options are read from the settings at every (re)start.
  const backend = new Backend(() => ({
    binary: binary(),
    args: settings().get<string[]>('serveArgs', []),
    logLevel: settings().get<string>('logLevel', 'info'),
    trace: settings().get<string>('trace', '') || undefined,
    cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
  }));

  const showBinaryError = (message: string): void => {
    void vscode.window.showErrorMessage(message, openSetting, showLog).then((a) => {
      if (a === openSetting) {
        void vscode.commands.executeCommand('workbench.action.openSettings', 'ddmbridge.path');
      } else if (a === showLog) {
        log.show();
      }
    });
  };

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

  const start = async (restart = false): Promise<boolean> => {
    try {
      await (restart ? backend.restart() : backend.start());
      return true;
    } catch (e) {
      // A failed start has already been reported through the 'failed' state.
      log.appendLine(`backend: ${errorText(e)}`);
      return false;
    }
  };

  context.subscriptions.push(
    { dispose: () => void backend.stop() },
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (backendSettings.some((k) => e.affectsConfiguration(k)) && backend.state !== 'stopped') {
        void start(true);
      }
    }),
  );

  return {
    backend,
    api: new ControlApi(backend),
    log,
    binary,
    logArgs: () => {
      const args = ['--log-level', settings().get<string>('logLevel', 'info')];
      const trace = settings().get<string>('trace', '');
      if (trace) {
        args.push('--trace', trace);
      }
      return args;
    },
    start,
    showBinaryError,
  };
}
