// The debugger contribution's code: configuration provider, adapter
// descriptor factory (the window's backend socket, or `ddmbridge dap`) and the
// VM picker behind ${command:ddmbridge.pickVM}.

import * as cp from 'child_process';
import * as fs from 'fs';
import * as vscode from 'vscode';
import { ControlApi } from '../backend/api';
import { errorText } from '../ddmHub';
import { jdkItems, JDKItem } from '../jdks';
import { processItems, ProcessItem } from '../jvms';
import { VMStore } from '../views/vmTree';
import { groupByDevice, unattachable, VMInfo, vmDescription, vmLabel, vmStates } from '../vms';
import { attachThrough, ConfigError, DebugConfig, defaultConfig, normalizeConfig } from './config';

/** JSON-RPC "invalid params": the backend refused the configuration. */
const InvalidParams = -32602;

export class ConfigurationProvider implements vscode.DebugConfigurationProvider {
  constructor(
    private readonly store: VMStore,
    private readonly api: ControlApi,
  ) {}

  resolveDebugConfiguration(
    _folder: vscode.WorkspaceFolder | undefined,
    config: vscode.DebugConfiguration,
  ): vscode.DebugConfiguration {
    if (!config.type && !config.request && !config.name) {
      return defaultConfig();
    }
    return config;
  }

  async resolveDebugConfigurationWithSubstitutedVariables(
    _folder: vscode.WorkspaceFolder | undefined,
    config: vscode.DebugConfiguration,
  ): Promise<vscode.DebugConfiguration | undefined> {
    try {
      const c = normalizeConfig(config as DebugConfig, (id) => this.store.find(id) !== undefined);
      // The backend's adapter validates configurations; ask it before the
      // session starts, so a half-written launch.json gets its words here.
      await this.api.backend.start();
      try {
        await this.api.checkConfig(c);
      } catch (e) {
        if ((e as { code?: number }).code === InvalidParams) {
          throw new ConfigError(e instanceof Error ? e.message : String(e));
        }
        throw e;
      }
      if (c.request !== 'attach' || typeof c.vm !== 'string') {
        return c;
      }
      // A monitored VM: the session goes through the window's backend — its
      // DAP socket, or else the monitor's pass-through port for that VM.
      if (!this.store.isLoaded) {
        await this.store.refresh();
      }
      const currentId = this.store.vms.find((v) => v.current)?.id;
      if (await this.api.dapEndpoint()) {
        // The backend resolves the VM itself; remember which one it is for the views.
        return { ...c, ddmbridgeVM: c.vm === 'current' ? (currentId ?? c.vm) : c.vm };
      }
      try {
        return attachThrough(c, await this.api.debugAddress(c.vm));
      } catch (e) {
        throw new ConfigError(`cannot reach VM ${c.vm} through the monitor: ${e instanceof Error ? e.message : String(e)}`);
      }
    } catch (e) {
      if (e instanceof ConfigError) {
        const open = 'Open launch.json';
        void vscode.window.showErrorMessage(`ddmbridge: ${config.name}: ${e.message}`, open).then((a) => {
          if (a === open) {
            void vscode.commands.executeCommand('workbench.action.debug.configure');
          }
        });
        return undefined;
      }
      throw e;
    }
  }
}

/** Offers "Attach to <VM>" for every monitored VM in the Run and Debug picker. */
export class DynamicConfigurationProvider implements vscode.DebugConfigurationProvider {
  constructor(private readonly store: VMStore) {}

  async provideDebugConfigurations(): Promise<vscode.DebugConfiguration[]> {
    const vms = this.store.isLoaded ? this.store.vms : await this.store.refresh().catch(() => []);
    return vms.map((vm) => ({
      type: 'ddmbridge',
      request: 'attach',
      name: `Attach to ${vmLabel(vm)} (${vm.address || vm.id})`,
      vm: vm.id,
    }));
  }
}

export interface AdapterDeps {
  api: ControlApi;
  /** Resolves the binary, or throws an actionable error. */
  binary: () => string;
  log: vscode.OutputChannel;
  logArgs: () => string[];
  /** Shows an actionable error about the binary (with "Open Setting"). */
  onBinaryProblem: (message: string) => void;
}

/**
 * Checks once per binary (path and modification time) that it has the `dap`
 * command, so an outdated binary gives an actionable message instead of an
 * adapter that dies at start.
 */
export function checkDapCommand(bin: string): string | undefined {
  let key: string;
  try {
    key = `${bin}@${fs.statSync(bin).mtimeMs}`;
  } catch {
    key = bin;
  }
  if (dapChecked.has(key)) {
    return dapChecked.get(key);
  }
  const r = cp.spawnSync(bin, ['dap', '--help'], { encoding: 'utf8', timeout: 10_000 });
  const problem =
    r.error !== undefined
      ? `cannot run ${bin}: ${r.error.message}`
      : /unknown command/.test(r.stderr ?? '')
        ? `${bin} has no "dap" command: it is older than this extension. Rebuild it (go build ./cmd/ddmbridge) or set "ddmbridge.path".`
        : undefined;
  dapChecked.set(key, problem);
  return problem;
}

const dapChecked = new Map<string, string | undefined>();

export class AdapterFactory implements vscode.DebugAdapterDescriptorFactory {
  constructor(private readonly d: AdapterDeps) {}

  async createDebugAdapterDescriptor(session: vscode.DebugSession): Promise<vscode.DebugAdapterDescriptor> {
    const bin = this.d.binary();
    try {
      await this.d.api.backend.start();
      const ep = await this.d.api.dapEndpoint();
      if (ep?.kind === 'pipe') {
        this.d.log.appendLine(`session "${session.name}": DAP through the backend, ${ep.path}`);
        return new vscode.DebugAdapterNamedPipeServer(ep.path);
      }
      if (ep?.kind === 'tcp') {
        this.d.log.appendLine(`session "${session.name}": DAP through the backend, ${ep.host}:${ep.port}`);
        return new vscode.DebugAdapterServer(ep.port, ep.host);
      }
    } catch (e) {
      this.d.log.appendLine(`session "${session.name}": backend socket unavailable (${errorText(e)})`);
    }
    const problem = checkDapCommand(bin);
    if (problem) {
      this.d.onBinaryProblem(problem);
      throw new Error(problem);
    }
    this.d.log.appendLine(`session "${session.name}": ${bin} dap`);
    return new vscode.DebugAdapterExecutable(bin, ['dap', ...this.d.logArgs()]);
  }
}

interface VMPickItem extends vscode.QuickPickItem {
  vm?: VMInfo;
}

function pickItems(vms: readonly VMInfo[]): VMPickItem[] {
  const items: VMPickItem[] = [];
  for (const g of groupByDevice(vms)) {
    items.push({ label: g.label, kind: vscode.QuickPickItemKind.Separator });
    for (const vm of g.vms) {
      const refused = unattachable(vm);
      items.push({
        label: `$(${refused ? 'circle-slash' : vm.debugger ? 'debug' : vm.waiting ? 'watch' : 'vm'}) ${vmLabel(vm)}`,
        description: vmDescription(vm),
        detail: refused ?? ([vm.vm, ...vmStates(vm)].filter(Boolean).join(' · ') || undefined),
        vm,
      });
    }
  }
  return items;
}

/**
 * One QuickPick with local and device VMs, updated live as VMs come and go.
 * Resolves to the VM's id, or undefined when dismissed (which cancels a
 * launch that used ${command:ddmbridge.pickVM}).
 */
export async function pickVM(store: VMStore, title = 'Attach to which VM?'): Promise<string | undefined> {
  const qp = vscode.window.createQuickPick<VMPickItem>();
  qp.title = title;
  qp.placeholder = 'Local JVMs and Android VMs found by ddmbridge';
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  const update = (vms: readonly VMInfo[]): void => {
    qp.items = pickItems(vms);
    if (vms.length === 0) {
      qp.placeholder = store.isLoaded
        ? 'No VMs yet — start a JVM with -agentlib:jdwp=transport=dt_socket,server=y,address=127.0.0.1:8000 or connect a device'
        : 'Looking for VMs…';
    }
  };
  update(store.vms);
  qp.busy = true;
  const sub = store.onDidChange(update);
  store
    .refresh()
    .catch((e) => {
      qp.placeholder = `Cannot list VMs: ${errorText(e)}`;
    })
    .finally(() => {
      qp.busy = false;
    });
  try {
    return await new Promise<string | undefined>((resolve) => {
      qp.onDidAccept(() => {
        const vm = qp.selectedItems[0]?.vm;
        const refused = vm && unattachable(vm);
        if (refused) {
          // adbd would refuse the JDWP stream: say why and what to do, keep the picker open.
          void vscode.window.showWarningMessage(`${vmLabel(vm)}: ${refused}`);
          return;
        }
        if (vm) {
          resolve(vm.id);
          qp.hide();
        }
      });
      qp.onDidHide(() => resolve(undefined));
      qp.show();
    });
  } finally {
    sub.dispose();
    qp.dispose();
  }
}

/**
 * The "attach to process" picker behind ${command:ddmbridge.pickJavaProcess}:
 * the local JVMs, those with a JDWP agent first. Resolves to the pid (a
 * string, for "processId"), or undefined when dismissed or when the chosen
 * process has no agent (then a message says what to add to its command line).
 */
export async function pickJavaProcess(api: ControlApi): Promise<string | undefined> {
  let items: ProcessItem[];
  try {
    items = processItems(await api.listJVMs());
  } catch (e) {
    void vscode.window.showErrorMessage(`Cannot list Java processes: ${errorText(e)}`);
    return undefined;
  }
  if (items.length === 0) {
    void vscode.window.showInformationMessage(
      'No Java process is running. Start one with -agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:5005 to attach to it.',
    );
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Attach to which Java process?',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!picked) {
    return undefined;
  }
  if (!picked.process.address) {
    void vscode.window.showErrorMessage(picked.process.noAttach ?? `Process ${picked.process.pid} cannot be attached.`);
    return undefined;
  }
  return String(picked.process.pid);
}

/**
 * The JDK picker behind ${command:ddmbridge.pickJavaHome}: the JDKs
 * installed on the backend's host (/usr/lib/jvm, JAVA_HOME, SDKMAN's
 * folder), newest first. Resolves to the chosen JDK's home (for a launch's
 * "javaHome"), or undefined when dismissed.
 */
export async function pickJavaHome(api: ControlApi): Promise<string | undefined> {
  let items: JDKItem[];
  try {
    items = jdkItems(await api.listJDKs());
  } catch (e) {
    void vscode.window.showErrorMessage(`Cannot list the installed JDKs: ${errorText(e)}`);
    return undefined;
  }
  if (items.length === 0) {
    void vscode.window.showInformationMessage('No JDK found in /usr/lib/jvm, JAVA_HOME or ~/.sdkman/candidates/java: set "javaHome" to a JDK\'s folder by hand.');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(items, { title: 'Run the program on which JDK?', matchOnDescription: true, matchOnDetail: true });
  return picked?.jdk.home;
}
