// Launch and attach configurations as data: defaults and the normalisation
// of what variable substitution leaves (numeric strings, a picked VM id).
// Whether a configuration can be debugged is the backend's call
// (dap/checkConfig, the adapter's own validation), not repeated here. No vscode.

export interface DebugConfig {
  type: string;
  request: string;
  name: string;
  [key: string]: unknown;
}

/** What F5 does without a launch.json: attach to the current VM. */
export function defaultConfig(): DebugConfig {
  return { type: 'ddmbridge', request: 'attach', name: 'Attach to current VM', vm: 'current' };
}

/** A configuration the backend refused, with what to change. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

function nonEmpty(v: unknown): v is string {
  return typeof v === 'string' && v.trim() !== '';
}

/** A string of digits (what ${command:…} and inputs give) as a number; anything else as it is. */
function numeric(v: unknown): unknown {
  return typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : v;
}

/** The VM ids the picker can return, to tell a picked VM from a pid in `processId`. */
export type KnownVM = (id: string) => boolean;

/**
 * Normalises a configuration after variable substitution: numeric strings to
 * numbers (port, timeout, processId), a picked VM id in `processId` to `vm`.
 * Returns a new object; it checks nothing (see checkConfig in the backend API).
 */
export function normalizeConfig(input: DebugConfig, knownVM: KnownVM = () => false): DebugConfig {
  const c: DebugConfig = { ...input };
  for (const k of ['port', 'timeout'] as const) {
    if (c[k] !== undefined) {
      c[k] = numeric(c[k]);
    }
  }
  if (c.request === 'attach') {
    if (typeof c.processId === 'string' && knownVM(c.processId)) {
      c.vm = c.processId;
      delete c.processId;
    } else if (c.processId === '') {
      delete c.processId;
    } else if (c.processId !== undefined) {
      c.processId = numeric(c.processId);
    }
  }
  return c;
}

/** A short description of where a session goes, for pickers and status. */
export function describeTarget(c: DebugConfig): string {
  if (c.request === 'attach') {
    if (nonEmpty(c.vm)) {
      return c.vm.trim() === 'current' ? 'the current VM' : `VM ${c.vm.trim()}`;
    }
    if (c.port !== undefined) {
      return `${nonEmpty(c.hostName) ? c.hostName : '127.0.0.1'}:${String(c.port)}`;
    }
    return c.processId !== undefined ? `process ${String(c.processId)}` : c.name;
  }
  return nonEmpty(c.mainClass) ? c.mainClass.trim() : nonEmpty(c.packageName) ? c.packageName.trim() : c.name;
}

/** Where the monitor lets a debugger reach a VM: the backend's answer to vm/debugAddress. */
export interface DebugAddress {
  /** The VM's id (for "current", the VM current now). */
  id: string;
  hostName: string;
  port: number;
}

/**
 * Without a DAP endpoint in the window's backend, a stand-alone `ddmbridge
 * dap` cannot resolve monitored VM ids; it attaches through the monitor's
 * pass-through port the backend names (vm/debugAddress) instead, which keeps
 * DDM flowing in the monitor. Turns `vm` into hostName/port and remembers the
 * VM's id in `ddmbridgeVM`. The mapping itself is the backend's.
 */
export function attachThrough(c: DebugConfig, addr: DebugAddress): DebugConfig {
  const out: DebugConfig = { ...c, hostName: addr.hostName, port: addr.port, ddmbridgeVM: addr.id };
  delete out.vm;
  return out;
}
