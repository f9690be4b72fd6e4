// Hot code replace from the editor: the adapter's redefineClasses request,
// sent for the class folders of a ddmbridge launch (its classPaths) when
// the build output changes (setting ddmbridge.hotCodeReplace "auto"), or on
// demand from the command and the debug toolbar button. The adapter does
// the work and says what was replaced or refused; this only chooses files
// and shows the result.

import * as vscode from 'vscode';

/** The body of redefineClasses (and of the hotCodeReplace event). */
interface RedefineBody {
  success?: boolean;
  message?: string;
  classes?: string[];
  skipped?: { file: string; class?: string; reason: string }[];
}

/** classDirs returns the folders among a launch configuration's classPaths (jars and wildcards are not watched). */
export function classDirs(config: { [key: string]: unknown }): string[] {
  const cps = config.classPaths;
  if (!Array.isArray(cps)) {
    return [];
  }
  return cps.filter((p): p is string => typeof p === 'string' && p !== '' && !/\.(jar|zip)$/i.test(p) && !p.endsWith('*'));
}

/** registerHotCodeReplace adds the command, and watches the class folders of every ddmbridge session. */
export function registerHotCodeReplace(context: vscode.ExtensionContext): void {
  const watches = new Map<string, vscode.Disposable>();
  const mode = (): string => vscode.workspace.getConfiguration('ddmbridge').get<string>('hotCodeReplace', 'auto');

  const watch = (s: vscode.DebugSession): void => {
    const dirs = classDirs(s.configuration);
    if (s.type !== 'ddmbridge' || dirs.length === 0) {
      return;
    }
    const changed = new Set<string>();
    let timer: NodeJS.Timeout | undefined;
    const flush = (): void => {
      timer = undefined;
      const files = [...changed];
      changed.clear();
      if (files.length > 0 && mode() === 'auto') {
        void replace(s, { classFiles: files });
      }
    };
    const onFile = (uri: vscode.Uri): void => {
      changed.add(uri.fsPath);
      if (timer) {
        clearTimeout(timer);
      }
      timer = setTimeout(flush, 500); // a build writes many files at once
    };
    const ws = dirs.map((dir) => {
      const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dir), '**/*.class'));
      w.onDidChange(onFile);
      w.onDidCreate(onFile);
      return w;
    });
    watches.set(s.id, { dispose: () => ws.forEach((w) => w.dispose()) });
  };

  context.subscriptions.push(
    vscode.commands.registerCommand('ddmbridge.hotCodeReplace', async () => {
      const s = vscode.debug.activeDebugSession;
      if (!s || s.type !== 'ddmbridge') {
        void vscode.window.showWarningMessage('ddmbridge: hot code replace needs an active ddmbridge debug session.');
        return;
      }
      const dirs = classDirs(s.configuration);
      if (dirs.length === 0) {
        void vscode.window.showWarningMessage('ddmbridge: the launch configuration names no class folders in "classPaths" to reload classes from.');
        return;
      }
      for (const directory of dirs) {
        await replace(s, { directory });
      }
    }),
    vscode.debug.onDidStartDebugSession(watch),
    vscode.debug.onDidTerminateDebugSession((s) => {
      watches.get(s.id)?.dispose();
      watches.delete(s.id);
    }),
    { dispose: () => watches.forEach((w) => w.dispose()) },
  );
}

/** replace sends one redefineClasses with a progress notification and reports the outcome. */
async function replace(s: vscode.DebugSession, args: { classFiles?: string[]; directory?: string }): Promise<void> {
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'ddmbridge: hot code replace' },
    async (progress) => {
      progress.report({ message: args.directory ?? `${args.classFiles?.length ?? 0} class file(s)` });
      try {
        const body = (await s.customRequest('redefineClasses', args)) as RedefineBody | undefined;
        const classes = body?.classes ?? [];
        const skipped = body?.skipped?.length ?? 0;
        const text = classes.length > 0 ? `replaced ${classes.join(', ')}` : 'no loaded class changed';
        void vscode.window.showInformationMessage(`ddmbridge: hot code replace: ${text}${skipped > 0 ? ` (${skipped} file(s) skipped)` : ''}.`);
      } catch (e) {
        void vscode.window.showErrorMessage(`ddmbridge: ${e instanceof Error ? e.message : String(e)}`);
      }
    },
  );
}
