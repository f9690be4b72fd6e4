// Monitored VMs as data: the backend's VM objects (vms/list), grouping by
// device, labels and states for the explorer and the picker. No vscode.

export interface VMInfo {
  id: string;
  /** host:port of the JDWP agent, or device serial and pid. */
  address: string;
  pid: number;
  name: string;
  /** VM ident, "<name> v<version>". */
  vm: string;
  ddm: boolean;
  waiting: boolean;
  debugger: boolean;
  debugPort: number;
  current?: boolean;
  protocol?: string;
  /** adb serial of the device the VM runs on (device VMs only). */
  serial?: string;
  /** The device's model (device VMs only). */
  device?: string;
  packageName?: string;
  debuggerFrom?: string;
  /** From the device's track-app, where it says so. */
  process?: string;
  packages?: string[];
  debuggable?: boolean;
  profileable?: boolean;
  waitingForDebugger?: boolean;
  /** Frozen by the cached-apps freezer: adbd refuses JDWP. */
  frozen?: boolean;
  /** Only the device's list knows it: no JDWP connection (see note). */
  listedOnly?: boolean;
  /** Why it is not monitored and what to do, in words. */
  note?: string;
  /** ddmbridge's simulated VM: its DDM data is made up. */
  simulated?: boolean;
}

function bool(v: unknown): boolean | undefined {
  return typeof v === 'boolean' ? v : undefined;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
}

/** Normalises one VM object; undefined when it has no id. */
export function decodeVM(v: unknown): VMInfo | undefined {
  if (!isObj(v)) {
    return undefined;
  }
  const id = str(v.id);
  if (id === '') {
    return undefined;
  }
  const device = str(v.device);
  const serial = str(v.serial);
  return {
    id,
    address: str(v.address),
    pid: typeof v.pid === 'number' ? v.pid : 0,
    name: str(v.name),
    vm: str(v.vm),
    ddm: v.ddm === true,
    waiting: v.waiting === true,
    debugger: v.debugger === true,
    debugPort: typeof v.debugPort === 'number' ? v.debugPort : 0,
    current: v.current === true,
    protocol: str(v.protocol) || undefined,
    serial: serial || undefined,
    device: device || undefined,
    packageName: str(v.packageName) || undefined,
    debuggerFrom: str(v.debuggerFrom) || undefined,
    process: str(v.process) || undefined,
    packages: Array.isArray(v.packages) ? v.packages.map(str).filter((p) => p !== '') : undefined,
    debuggable: bool(v.debuggable),
    profileable: bool(v.profileable),
    waitingForDebugger: bool(v.waitingForDebugger),
    frozen: bool(v.frozen),
    listedOnly: v.listedOnly === true || undefined,
    note: str(v.note) || undefined,
    simulated: v.simulated === true || undefined,
  };
}

/**
 * Why a debugger cannot attach to the VM now, in words with what to do;
 * undefined when it can. adbd refuses JDWP to frozen and non-debuggable apps.
 */
export function unattachable(vm: VMInfo): string | undefined {
  if (vm.frozen || vm.debuggable === false) {
    return vm.note || (vm.frozen ? 'frozen by the cached-apps freezer: bring the app to the foreground' : 'not debuggable: install a debug build');
  }
  if (vm.listedOnly) {
    return vm.note || 'not monitored yet: try again in a moment';
  }
  return undefined;
}

/** Reads a vms/list result: a bare array or `{vms: [...]}`. */
export function decodeVMs(body: unknown): VMInfo[] {
  const list = Array.isArray(body) ? body : isObj(body) && Array.isArray(body.vms) ? body.vms : [];
  return list.map(decodeVM).filter((v): v is VMInfo => v !== undefined);
}

const localHosts = new Set(['127.0.0.1', 'localhost', '::1', '[::1]', '0.0.0.0']);

/**
 * The device a VM belongs to, as an adb serial or a host: its `serial`, else
 * the serial of a SERIAL/PID address, else the host of a host:port address
 * ("This computer" for loopback).
 */
export function deviceOf(vm: VMInfo): string {
  if (vm.serial) {
    return vm.serial;
  }
  const dev = /^(.+)\/(\d+)$/.exec(vm.address);
  if (dev) {
    return dev[1];
  }
  const m = /^(.*):(\d+)$/.exec(vm.address);
  const host = m ? m[1] : vm.address;
  if (host === '' || localHosts.has(host)) {
    return localDevice;
  }
  return host;
}

export const localDevice = 'This computer';

/** An adb device (devices/list, devices/* notifications). */
export interface DeviceInfo {
  serial: string;
  /** adb state: device (online), offline, unauthorized, …, gone. */
  state: string;
  online: boolean;
  model?: string;
  product?: string;
}

export function decodeDevice(v: unknown): DeviceInfo | undefined {
  if (!isObj(v) || str(v.serial) === '') {
    return undefined;
  }
  return {
    serial: str(v.serial),
    state: str(v.state) || 'unknown',
    online: v.online === true,
    model: str(v.model) || undefined,
    product: str(v.product) || undefined,
  };
}

export function decodeDevices(body: unknown): DeviceInfo[] {
  const list = Array.isArray(body) ? body : isObj(body) && Array.isArray(body.devices) ? body.devices : [];
  return list.map(decodeDevice).filter((d): d is DeviceInfo => d !== undefined);
}

/** Applies devices/added, devices/removed and devices/changed notifications. */
export function applyDeviceEvent(list: readonly DeviceInfo[], kind: 'added' | 'removed' | 'changed', params: unknown): DeviceInfo[] {
  const d = decodeDevice(isObj(params) && isObj(params.device) ? params.device : params);
  if (!d) {
    return [...list];
  }
  const rest = list.filter((x) => x.serial !== d.serial);
  return kind === 'removed' || d.state === 'gone' ? rest : [...rest, d];
}

export interface DeviceGroup {
  /** The adb serial, a remote host, or "This computer". */
  device: string;
  /** What to call it: the model and serial for adb devices. */
  label: string;
  /** adb state for devices ("device" = online). */
  state?: string;
  vms: VMInfo[];
}

/**
 * Groups VMs by device — this computer first, then devices by name, VMs by
 * name then id — and adds adb devices that have no VMs (offline,
 * unauthorized, nothing debuggable).
 */
export function groupByDevice(vms: readonly VMInfo[], devices: readonly DeviceInfo[] = []): DeviceGroup[] {
  const groups = new Map<string, VMInfo[]>();
  for (const d of devices) {
    groups.set(d.serial, []);
  }
  for (const vm of vms) {
    const d = deviceOf(vm);
    groups.set(d, [...(groups.get(d) ?? []), vm]);
  }
  const byName = (a: VMInfo, b: VMInfo): number =>
    vmLabel(a).localeCompare(vmLabel(b)) || a.id.localeCompare(b.id, undefined, { numeric: true });
  return [...groups.entries()]
    .sort(([a], [b]) => (a === localDevice ? -1 : b === localDevice ? 1 : a.localeCompare(b)))
    .map(([device, list]) => {
      const info = devices.find((d) => d.serial === device);
      const model = info?.model ?? list.find((v) => v.device)?.device;
      return {
        device,
        label: model ? `${model.replace(/_/g, ' ')} (${device})` : device,
        state: info?.state,
        vms: list.sort(byName),
      };
    });
}

export function vmLabel(vm: VMInfo): string {
  return vm.name || vm.process || vm.packageName || vm.vm || vm.address || vm.id;
}

/** The states worth showing, most important first. */
export function vmStates(vm: VMInfo): string[] {
  const s: string[] = [];
  if (vm.current) {
    s.push('current');
  }
  if (vm.frozen) {
    s.push('frozen');
  } else if (vm.debuggable === false) {
    s.push('not debuggable');
  } else if (vm.listedOnly) {
    s.push('not monitored yet');
  }
  if (vm.waiting) {
    s.push('waiting for debugger');
  }
  if (vm.debugger) {
    s.push('debugger attached');
  }
  if (vm.ddm) {
    s.push('DDM');
  }
  if (vm.simulated) {
    s.push('simulated');
  }
  return s;
}

/** The VM as a view's title names it: its label, "(simulated)" for the simulator (its DDM data is made up). */
export function vmTitle(vm: VMInfo): string {
  return vmLabel(vm) + (vm.simulated ? ' (simulated)' : '');
}

export function vmDescription(vm: VMInfo): string {
  const parts = [vm.pid ? `pid ${vm.pid}` : '', vm.address, ...vmStates(vm)].filter((p) => p !== '');
  return parts.join(' · ');
}

export function vmTooltip(vm: VMInfo): string {
  const lines = [
    vmLabel(vm),
    `id: ${vm.id}`,
    vm.vm ? `VM: ${vm.vm}` : '',
    vm.address ? `address: ${vm.address}` : '',
    vm.pid ? `pid: ${vm.pid}` : '',
    vm.debugPort ? `debugger port: ${vm.debugPort}` : '',
    `protocol: ${vm.protocol ?? (vm.ddm ? 'ddm' : 'jdwp')}`,
    vm.waiting ? 'waiting for a debugger' : '',
    vm.debugger ? `debugger attached${vm.debuggerFrom ? ` from ${vm.debuggerFrom}` : ''}` : '',
    vm.packages && vm.packages.length > 0 ? `packages: ${vm.packages.join(', ')}` : '',
    vm.note ?? '',
    vm.simulated ? "simulated: ddmbridge's simulator, whose DDM data (thread states without a JVM, heap maps, allocations) is made up" : '',
  ];
  return lines.filter((l) => l !== '').join('\n');
}

/**
 * The explorer item's contextValue: "vm" plus flags, so menus can match
 * /^vm/ and e.g. /ddm/ for the heap actions; "listed" for a process only the
 * device's list knows (frozen, not debuggable, not yet monitored).
 */
export function vmContextValue(vm: VMInfo): string {
  if (vm.listedOnly) {
    return 'listed'; // no JDWP connection: no VM actions, the tooltip says why
  }
  return ['vm', vm.ddm ? 'ddm' : 'jdwp', vm.debugger ? 'attached' : '', vm.current ? 'current' : '']
    .filter((p) => p !== '')
    .join('.');
}

/** Applies vms/added, vms/removed and vms/changed notifications to a list. */
export function applyVMEvent(list: readonly VMInfo[], kind: 'added' | 'removed' | 'changed', params: unknown): VMInfo[] {
  const incoming = isObj(params) && (isObj(params.vm) || Array.isArray(params.vms)) ? (params.vm ?? params.vms) : params;
  const vms = Array.isArray(incoming) ? decodeVMs(incoming) : [decodeVM(incoming)].filter((v): v is VMInfo => !!v);
  let ids = vms.map((v) => v.id);
  if (ids.length === 0 && isObj(params) && params.id !== undefined) {
    ids = [str(params.id)];
  }
  const rest = list.filter((v) => !ids.includes(v.id));
  if (kind === 'removed') {
    return rest;
  }
  // A VM becoming current makes every other one not current.
  const cur = vms.find((v) => v.current);
  const others = cur ? rest.map((v) => (v.current ? { ...v, current: false } : v)) : rest;
  return [...others, ...vms];
}

/**
 * The ports `ddmbridge serve` scans as serveArgs set them: the value of the
 * last `--scan X` or `--scan=X` ("" when scanning is off), or undefined
 * for the default range (127.0.0.1:8000-8040).
 */
export function scanRangeOf(serveArgs: readonly string[]): string | undefined {
  let scan: string | undefined;
  for (let i = 0; i < serveArgs.length; i++) {
    const a = serveArgs[i];
    const m = /^--?scan=(.*)$/.exec(a);
    if (m) {
      scan = m[1];
    } else if ((a === '--scan' || a === '-scan') && i + 1 < serveArgs.length) {
      scan = serveArgs[++i];
    }
  }
  return scan;
}

/** What the empty VM explorer says is scanned: the welcome's variant and the range. */
export function scanWelcome(serveArgs: readonly string[]): { mode: 'default' | 'custom' | 'none'; message?: string } {
  const scan = scanRangeOf(serveArgs);
  if (scan === undefined) {
    return { mode: 'default' };
  }
  if (scan.trim() === '') {
    return { mode: 'none', message: 'No ports are scanned (ddmbridge.serveArgs sets --scan to nothing).' };
  }
  return { mode: 'custom', message: `Scanning ${scan.split(',').join(', ')} for JDWP agents (ddmbridge.serveArgs).` };
}
