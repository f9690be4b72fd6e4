// Launch and attach configurations as data: defaults, normalisation and the
// checks that turn a half-written launch.json into an actionable message
// before the adapter starts. No vscode.

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

export type AttachTarget =
  | { kind: 'vm'; vm: string }
  | { kind: 'address'; hostName: string; port: number }
  | { kind: 'process'; processId: number };

export type LaunchTarget = { kind: 'java'; mainClass: string } | { kind: 'android'; packageName: string };

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

function nonEmpty(v: unknown): v is string {
  return typeof v === 'string' && v.trim() !== '';
}

function asPort(v: unknown): number | undefined {
  const n = typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 && n < 65536 ? n : undefined;
}

/** The VM ids the picker can return, to tell a picked VM from a pid in `processId`. */
export type KnownVM = (id: string) => boolean;

/**
 * Normalises a configuration after variable substitution: numeric strings to
 * numbers, a picked VM id in `processId` to `vm`, string `args`/`vmArgs` kept
 * as they are (the adapter splits them like vscode-java-debug). Returns a new
 * object; throws ConfigError with what to change when it cannot be debugged.
 */
export function normalizeConfig(input: DebugConfig, knownVM: KnownVM = () => false): DebugConfig {
  const c: DebugConfig = { ...input };
  if (c.request !== 'attach' && c.request !== 'launch') {
    throw new ConfigError(`"request" must be "attach" or "launch", not ${JSON.stringify(c.request)}.`);
  }
  if (c.port !== undefined) {
    const p = asPort(c.port);
    if (p === undefined) {
      throw new ConfigError(`"port" must be a TCP port number (1–65535), not ${JSON.stringify(c.port)}.`);
    }
    c.port = p;
  }
  if (c.timeout !== undefined) {
    const t = typeof c.timeout === 'string' ? Number(c.timeout) : c.timeout;
    if (typeof t !== 'number' || !Number.isFinite(t) || t < 0) {
      throw new ConfigError(`"timeout" must be a number of milliseconds, not ${JSON.stringify(c.timeout)}.`);
    }
    c.timeout = t;
  }
  if (c.request === 'attach') {
    if (c.processId !== undefined && c.processId !== '') {
      const pid = typeof c.processId === 'number' ? c.processId : Number(c.processId);
      if (typeof c.processId === 'string' && knownVM(c.processId)) {
        c.vm = c.processId;
        delete c.processId;
      } else if (Number.isInteger(pid) && pid > 0) {
        c.processId = pid;
      } else {
        throw new ConfigError(`"processId" must be the pid of a local JVM, not ${JSON.stringify(c.processId)}.`);
      }
    } else {
      delete c.processId;
    }
    attachTarget(c);
  } else {
    launchTarget(c);
  }
  return c;
}

/** What an attach configuration points at; throws ConfigError when nothing or too much. */
export function attachTarget(c: DebugConfig): AttachTarget {
  const hasAddr = c.port !== undefined;
  const hasVM = nonEmpty(c.vm);
  const hasPid = c.processId !== undefined;
  const n = [hasAddr, hasVM, hasPid].filter(Boolean).length;
  if (n === 0) {
    throw new ConfigError(
      'Attach needs a target: "vm": "current" (or a VM id from the VM explorer), "hostName" and "port", or "processId".',
    );
  }
  if (n > 1) {
    throw new ConfigError('Attach takes one target: either "vm", or "hostName" and "port", or "processId" — not several.');
  }
  if (hasAddr) {
    return { kind: 'address', hostName: nonEmpty(c.hostName) ? c.hostName : '127.0.0.1', port: c.port as number };
  }
  if (hasVM) {
    return { kind: 'vm', vm: (c.vm as string).trim() };
  }
  return { kind: 'process', processId: c.processId as number };
}

/** What a launch configuration starts; throws ConfigError when neither a main class nor a package. */
export function launchTarget(c: DebugConfig): LaunchTarget {
  if (nonEmpty(c.packageName)) {
    if (nonEmpty(c.mainClass)) {
      throw new ConfigError('Launch takes either "mainClass" (a Java program) or "packageName" (an Android app), not both.');
    }
    return { kind: 'android', packageName: c.packageName.trim() };
  }
  if (nonEmpty(c.mainClass)) {
    return { kind: 'java', mainClass: c.mainClass.trim() };
  }
  throw new ConfigError(
    'Launch needs "mainClass" (the fully qualified main class of a Java program) or "packageName" (an Android application id).',
  );
}

/** A short description of where a session goes, for pickers and status. */
export function describeTarget(c: DebugConfig): string {
  try {
    if (c.request === 'attach') {
      const t = attachTarget(c);
      return t.kind === 'vm'
        ? t.vm === 'current'
          ? 'the current VM'
          : `VM ${t.vm}`
        : t.kind === 'address'
          ? `${t.hostName}:${t.port}`
          : `process ${t.processId}`;
    }
    const t = launchTarget(c);
    return t.kind === 'java' ? t.mainClass : t.packageName;
  } catch {
    return c.name;
  }
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
