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

/** A VM's heap statistics (ddm.HeapInfoJSON). */
export interface HeapInfo {
  id: string;
  heaps: HeapStats[];
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
  const o = fieldsOf(body, '', ['id', 'heaps'], [], HeapInfoError);
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
  return { id, heaps };
}

export function heapUsePercent(h: HeapStats): number {
  return h.sizeBytes > 0 ? (100 * h.allocatedBytes) / h.sizeBytes : 0;
}
