// Heap statistics (DDM HPIF) exactly as the backend sends them:
// ddm.HeapInfoJSON (docs/rpc.md "One schema for threads and heaps"), the
// vm/heapInfo result, the vm/heap notification and the ddmHeapInfo event body.

import { fieldsOf, SchemaError, str, uint } from '../schema';

/** One heap of HPIF (ddm.HeapStatsJSON). */
export interface HeapStats {
  heapId: number;
  /** Milliseconds since the epoch. */
  timestampMs: number;
  /** What triggered it: 1 request, 2 next GC, 3 every GC. */
  reason: number;
  maxBytes: number;
  sizeBytes: number;
  allocatedBytes: number;
  allocatedObjects: number;
}

/**
 * Where heap data came from when not from the VM's own reports
 * (ddm.DumpSource): a heap dump (a local HotSpot VM; current Android, which
 * sends no HPIF/HPSG), with the dump's time and why, in words.
 */
export interface DumpSource {
  source?: 'dump';
  /** The dump's time, RFC 3339. */
  dumpedAt?: string;
  note?: string;
}

/** A VM's heap statistics (ddm.HeapInfoJSON). */
export interface HeapInfo extends DumpSource {
  id: string;
  heaps: HeapStats[];
}

export const dumpSourceFields = ['source', 'dumpedAt', 'note'] as const;

/** Decodes the optional dump-source fields of a heap info or map. */
export function decodeDumpSource(o: Record<string, unknown>, E: typeof HeapInfoError | (new (m: string) => Error)): DumpSource {
  const out: DumpSource = {};
  if (o.source !== undefined) {
    if (o.source !== 'dump') {
      throw new E(`source: ${JSON.stringify(o.source)} is not "dump"`);
    }
    out.source = 'dump';
  }
  for (const k of ['dumpedAt', 'note'] as const) {
    if (o[k] !== undefined) {
      out[k] = str(o[k], k, E);
    }
  }
  return out;
}

/** The words a view shows for data drawn from a dump, or "" for the VM's own reports. */
export function dumpSourceText(d: DumpSource): string {
  if (d.source !== 'dump') {
    return '';
  }
  const at = d.dumpedAt ? new Date(d.dumpedAt) : undefined;
  const when = at && !isNaN(at.getTime()) ? ` taken at ${at.toLocaleTimeString('en-GB')}` : '';
  return `From a heap dump${when}` + (d.note ? ` (${d.note})` : '');
}

export class HeapInfoError extends SchemaError {
  constructor(message: string) {
    super(`heap info: ${message}`);
    this.name = 'HeapInfoError';
  }
}

const statFields = ['heapId', 'timestampMs', 'reason', 'maxBytes', 'sizeBytes', 'allocatedBytes', 'allocatedObjects'] as const;

/** Decodes {id, heaps: [HeapStats…]} strictly: unknown or missing fields are errors naming the field. */
export function decodeHeapInfo(body: unknown): HeapInfo {
  const o = fieldsOf(body, '', ['id', 'heaps'], dumpSourceFields, HeapInfoError);
  const id = str(o.id, 'id', HeapInfoError);
  if (!Array.isArray(o.heaps)) {
    throw new HeapInfoError(`heaps: expected an array, got ${JSON.stringify(o.heaps)}`);
  }
  const heaps = o.heaps.map((h, i): HeapStats => {
    const where = `heaps[${i}]`;
    const f = fieldsOf(h, where, statFields, [], HeapInfoError);
    const v = {} as Record<(typeof statFields)[number], number>;
    for (const k of statFields) {
      v[k] = uint(f[k], `${where}.${k}`, HeapInfoError);
    }
    return v;
  });
  return { id, heaps, ...decodeDumpSource(o, HeapInfoError) };
}

export function heapUsePercent(h: HeapStats): number {
  return h.sizeBytes > 0 ? (100 * h.allocatedBytes) / h.sizeBytes : 0;
}
