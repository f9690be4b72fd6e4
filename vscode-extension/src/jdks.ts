// Installed JDKs for the launch configuration's "javaHome" picker: the
// backend's jdks/list (docs/rpc.md), decoded strictly, and the picker's
// items. No vscode here.

/** One JDK (or JRE) as jdks/list sends it. */
export interface JDK {
  home: string;
  /** The feature release: 25 for 25.0.3, 8 for 1.8.0_402. */
  version: number;
  /** The release file's JAVA_VERSION. */
  full: string;
  vendor?: string;
  /** It has javac (a JDK, not a JRE). */
  compiler: boolean;
}

/** Decodes a jdks/list result; entries without a home or a version are dropped. */
export function decodeJDKs(raw: unknown): JDK[] {
  if (!Array.isArray(raw)) {
    return [];
  }
  const out: JDK[] = [];
  for (const e of raw) {
    if (typeof e !== 'object' || e === null) {
      continue;
    }
    const r = e as Record<string, unknown>;
    if (typeof r.home !== 'string' || r.home === '' || typeof r.version !== 'number' || !Number.isInteger(r.version) || r.version <= 0) {
      continue;
    }
    const j: JDK = { home: r.home, version: r.version, full: typeof r.full === 'string' ? r.full : String(r.version), compiler: r.compiler === true };
    if (typeof r.vendor === 'string' && r.vendor !== '') {
      j.vendor = r.vendor;
    }
    out.push(j);
  }
  return out;
}

/** A picker row. */
export interface JDKItem {
  label: string;
  description: string;
  detail: string;
  jdk: JDK;
}

/** The picker's rows, newest first; a JRE says it cannot compile. */
export function jdkItems(jdks: readonly JDK[]): JDKItem[] {
  const sorted = [...jdks].sort((a, b) => b.version - a.version || a.home.localeCompare(b.home));
  return sorted.map((j) => ({
    label: `Java ${j.version}`,
    description: [j.full, j.vendor, j.compiler ? '' : 'JRE (no javac)'].filter((s) => s).join(' · '),
    detail: j.home,
    jdk: j,
  }));
}
