// The VM explorer: devices → VMs with their state, fed by vms/list and the
// vms/added|removed|changed notifications.

import * as vscode from 'vscode';
import { ControlApi } from '../backend/api';
import {
  applyDeviceEvent,
  applyVMEvent,
  decodeDevices,
  DeviceGroup,
  DeviceInfo,
  groupByDevice,
  localDevice,
  VMInfo,
  vmContextValue,
  vmDescription,
  vmLabel,
  vmTooltip,
} from '../vms';

type Node = { kind: 'device'; group: DeviceGroup } | { kind: 'vm'; vm: VMInfo };

interface Lists {
  vms: VMInfo[];
  devices: DeviceInfo[];
}

export class VMStore implements vscode.Disposable {
  private list: VMInfo[] = [];
  private deviceList: DeviceInfo[] = [];
  /** Changes to replay on the result of the refresh in flight. */
  private pending?: ((l: Lists) => Lists)[];
  private loaded = false;
  private readonly changed = new vscode.EventEmitter<VMInfo[]>();
  readonly onDidChange = this.changed.event;
  private readonly subs: vscode.Disposable[] = [];

  constructor(
    private readonly api: ControlApi,
    private readonly log: vscode.OutputChannel,
  ) {
    const be = api.backend;
    for (const kind of ['added', 'removed', 'changed'] as const) {
      const h = (p: unknown): void => {
        this.list = applyVMEvent(this.list, kind, p);
        this.pending?.push((l) => ({ ...l, vms: applyVMEvent(l.vms, kind, p) }));
        this.changed.fire(this.list);
      };
      be.on(`vms/${kind}`, h);
      this.subs.push({ dispose: () => be.off(`vms/${kind}`, h) });
    }
    for (const kind of ['added', 'removed', 'changed'] as const) {
      const h = (p: unknown): void => {
        this.deviceList = applyDeviceEvent(this.deviceList, kind, p);
        this.pending?.push((l) => ({ ...l, devices: applyDeviceEvent(l.devices, kind, p) }));
        this.changed.fire(this.list);
      };
      be.on(`devices/${kind}`, h);
      this.subs.push({ dispose: () => be.off(`devices/${kind}`, h) });
    }
    const onState = (s: string): void => {
      if (s === 'running') {
        void this.refresh();
      } else if (s === 'failed' || s === 'restarting') {
        this.list = [];
        this.deviceList = [];
        this.changed.fire(this.list);
      }
    };
    be.on('state', onState);
    this.subs.push({ dispose: () => be.off('state', onState) });
  }

  get vms(): readonly VMInfo[] {
    return this.list;
  }

  get devices(): readonly DeviceInfo[] {
    return this.deviceList;
  }

  get isLoaded(): boolean {
    return this.loaded;
  }

  find(id: string): VMInfo | undefined {
    return this.list.find((v) => v.id === id);
  }

  async refresh(): Promise<VMInfo[]> {
    // Notifications that arrive while the lists are fetched may be newer than
    // the snapshot the backend answers with: replay them on top of it.
    const pending: ((l: Lists) => Lists)[] = [];
    this.pending = pending;
    try {
      const [vms, devices] = await Promise.all([
        this.api.listVMs(),
        this.api.backend.request('devices/list', {}).then(decodeDevices, () => [] as DeviceInfo[]),
      ]);
      const l = pending.reduce((acc, f) => f(acc), { vms, devices });
      [this.list, this.deviceList] = [l.vms, l.devices];
      this.loaded = true;
    } catch (e) {
      this.log.appendLine(`vms/list: ${e instanceof Error ? e.message : String(e)}`);
      throw e;
    } finally {
      if (this.pending === pending) {
        this.pending = undefined;
      }
      this.changed.fire(this.list);
    }
    return this.list;
  }

  dispose(): void {
    this.subs.forEach((d) => d.dispose());
    this.changed.dispose();
  }
}

export class VMTreeProvider implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly sub: vscode.Disposable;

  constructor(private readonly store: VMStore) {
    this.sub = store.onDidChange(() => this.changed.fire(undefined));
  }

  getChildren(node?: Node): Node[] {
    if (!node) {
      return groupByDevice(this.store.vms, this.store.devices).map((group) => ({ kind: 'device', group }));
    }
    return node.kind === 'device' ? node.group.vms.map((vm) => ({ kind: 'vm', vm })) : [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'device') {
      const g = node.group;
      const it = new vscode.TreeItem(g.label, g.vms.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
      it.id = `device:${g.device}`;
      it.iconPath = new vscode.ThemeIcon(g.device === localDevice ? 'vm' : 'device-mobile');
      const count = `${g.vms.length} VM${g.vms.length === 1 ? '' : 's'}`;
      it.description = g.state && g.state !== 'device' ? `${g.state} · ${count}` : count;
      if (g.state === 'unauthorized') {
        it.tooltip = 'Accept the debugging prompt on the device (USB debugging authorization).';
      }
      it.contextValue = 'device';
      return it;
    }
    const vm = node.vm;
    const it = new vscode.TreeItem(vmLabel(vm), vscode.TreeItemCollapsibleState.None);
    it.id = `vm:${vm.id}`;
    it.description = vmDescription(vm);
    it.tooltip = vmTooltip(vm);
    it.contextValue = vmContextValue(vm);
    it.iconPath = vm.debugger
      ? new vscode.ThemeIcon('debug', new vscode.ThemeColor('debugIcon.startForeground'))
      : vm.waiting
        ? new vscode.ThemeIcon('watch', new vscode.ThemeColor('charts.yellow'))
        : vm.current
          ? new vscode.ThemeIcon('star-full', new vscode.ThemeColor('charts.blue'))
          : new vscode.ThemeIcon(vm.ddm ? 'pulse' : 'circle-outline');
    it.command = { command: 'ddmbridge.focusVM', title: 'Show in Threads and Heap views', arguments: [vm] };
    return it;
  }

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }
}

/** The VM a context-menu command was invoked on (tree node, VMInfo, id) or undefined. */
export function vmFromArg(arg: unknown, store: VMStore): VMInfo | undefined {
  if (typeof arg === 'string') {
    return store.find(arg);
  }
  if (typeof arg === 'object' && arg !== null) {
    const o = arg as Record<string, unknown>;
    if (o.kind === 'vm' && typeof o.vm === 'object') {
      return o.vm as VMInfo;
    }
    if (typeof o.id === 'string') {
      return store.find(o.id) ?? (o as unknown as VMInfo);
    }
  }
  return undefined;
}
