// Local JVMs for the "attach to process" picker: the backend's jvms/list
// (docs/rpc.md), decoded strictly, and the picker's items. No vscode here.

/** A local Java process as jvms/list sends it. */
export interface JavaProcess {
  pid: number;
  main: string;
  command: string;
  /** Where its JDWP agent listens; absent when it cannot be attached. */
  address?: string;
  /** Why it cannot be attached, and what to add to its command line. */
  noAttach?: string;
}

/** Decodes a jvms/list result; entries without a numeric pid are dropped. */
export function decodeJVMs(raw: unknown): JavaProcess[] {
  if (!Array.isArray(raw)) {
    return [];
  }
  const out: JavaProcess[] = [];
  for (const e of raw) {
    if (typeof e !== 'object' || e === null || typeof (e as { pid?: unknown }).pid !== 'number') {
      continue;
    }
    const r = e as Record<string, unknown>;
    const p: JavaProcess = {
      pid: r.pid as number,
      main: typeof r.main === 'string' ? r.main : '',
      command: typeof r.command === 'string' ? r.command : '',
    };
    if (typeof r.address === 'string' && r.address !== '') {
      p.address = r.address;
    }
    if (typeof r.noAttach === 'string' && r.noAttach !== '') {
      p.noAttach = r.noAttach;
    }
    out.push(p);
  }
  return out;
}

/** A picker row: attachable processes first, each saying where or why not. */
export interface ProcessItem {
  label: string;
  description: string;
  detail: string;
  process: JavaProcess;
}

export function processItems(ps: readonly JavaProcess[]): ProcessItem[] {
  const sorted = [...ps].sort((a, b) => Number(!a.address) - Number(!b.address) || a.pid - b.pid);
  return sorted.map((p) => ({
    label: `${p.pid}  ${p.main || '(no main class)'}`,
    description: p.address ? `JDWP at ${p.address}` : 'no JDWP agent to attach to',
    detail: p.address ? p.command : (p.noAttach ?? ''),
    process: p,
  }));
}
