// Heap statistics (DDM HPIF) as the backend sends them, normalised.

export interface HeapStats {
  heapId: number;
  maxBytes: number;
  sizeBytes: number;
  allocatedBytes: number;
  allocatedObjects: number;
  /** Milliseconds since the epoch. */
  timestamp?: number;
}

function pick(o: Record<string, unknown>, ...names: string[]): number | undefined {
  for (const n of names) {
    const v = o[n];
    if (typeof v === 'number' && Number.isFinite(v)) {
      return v;
    }
  }
  return undefined;
}

function one(o: unknown, key?: string): HeapStats | undefined {
  if (typeof o !== 'object' || o === null) {
    return undefined;
  }
  const r = o as Record<string, unknown>;
  const id = pick(r, 'heapId', 'HeapID', 'id') ?? (key !== undefined && /^\d+$/.test(key) ? Number(key) : undefined);
  const max = pick(r, 'maxBytes', 'max', 'MaxBytes');
  const size = pick(r, 'sizeBytes', 'size', 'SizeBytes');
  const alloc = pick(r, 'allocatedBytes', 'allocated', 'bytesAllocated', 'AllocatedBytes');
  const objs = pick(r, 'allocatedObjects', 'objects', 'objectsAllocated', 'AllocatedObjects');
  if (id === undefined || size === undefined || alloc === undefined) {
    return undefined;
  }
  return {
    heapId: id,
    maxBytes: max ?? 0,
    sizeBytes: size,
    allocatedBytes: alloc,
    allocatedObjects: objs ?? 0,
    timestamp: pick(r, 'timestamp', 'timestampMs', 'TimestampMs'),
  };
}

/**
 * Accepts `{heaps: [...]}`, a bare array, or a map keyed by heap id, and
 * returns the heaps sorted by id. Entries it cannot read are skipped.
 */
export function decodeHeapInfo(body: unknown): HeapStats[] {
  let list: [unknown, string | undefined][] = [];
  if (Array.isArray(body)) {
    list = body.map((h) => [h, undefined]);
  } else if (typeof body === 'object' && body !== null) {
    const r = body as Record<string, unknown>;
    const heaps = r.heaps ?? r.heapInfo ?? r.info;
    if (Array.isArray(heaps)) {
      list = heaps.map((h) => [h, undefined]);
    } else if (typeof heaps === 'object' && heaps !== null) {
      list = Object.entries(heaps).map(([k, v]) => [v, k]);
    } else if (one(r)) {
      list = [[r, undefined]];
    } else {
      list = Object.entries(r).map(([k, v]) => [v, k]);
    }
  }
  return list
    .map(([h, k]) => one(h, k))
    .filter((h): h is HeapStats => h !== undefined)
    .sort((a, b) => a.heapId - b.heapId);
}

export function heapUsePercent(h: HeapStats): number {
  return h.sizeBytes > 0 ? (100 * h.allocatedBytes) / h.sizeBytes : 0;
}
