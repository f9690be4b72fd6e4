// Heap maps as data: strict decoding of the backend's one heap-map schema
// (ddm.HeapMapJSON, docs/rpc.md "vm/heapMap"), per-kind totals and the
// linear layout the heap view draws. The backend sends what a view draws —
// blocks as indexes into a table of styles with their colours, the legend,
// the totals — so there is no palette and no run-list decoding here. No DOM,
// no vscode: the extension, the webview scripts and the unit tests share it.

import { bool, fieldsOf, SchemaError, str, uint } from '../schema';
import { decodeDumpSource, dumpSourceFields } from './heapinfo';

/** Kind names as the backend spells them (ddm.Kind.String), in DDM order. */
export const kindNames: readonly string[] = [
  'object',
  'class',
  '1-byte array',
  '2-byte array',
  '4-byte array',
  '8-byte array',
  'unknown',
  'native',
];

/** Solidity names as the backend spells them (ddm.Solidity.String). */
export const solidityNames: readonly string[] = ['free', 'hard', 'soft', 'weak', 'phantom', 'finalizable', 'sweep', 'solidity(7)'];

export type RGB = readonly [number, number, number];

/** styles[i] of a heap map: what a block looks like. */
export interface BlockStyle {
  kind: string;
  solidity: string;
  /** "#rrggbb", as sent. */
  color: string;
  rgb: RGB;
  /** Index of kind in kindNames. */
  kindIndex: number;
  free: boolean;
}

/** A run of allocation units drawn in one style. */
export interface Block {
  /** Index into HeapMap.styles. */
  style: number;
  units: number;
}

/** A contiguous stretch of heap. */
export interface Piece {
  start: number;
  /** Bytes per allocation unit. */
  unitSize: number;
  units: number;
  blocks: Block[];
}

/** One line of the legend: key is "free", "gap" or a kind name. */
export interface LegendEntry {
  key: string;
  label: string;
  detail: string;
  color: string;
  rgb: RGB;
}

export interface HeapMapTotals {
  bytes: number;
  freeBytes: number;
  /** Allocated bytes by kind name (kinds with none left out). */
  byKind: Record<string, number>;
}

export interface HeapMap {
  /** The VM (or, for hprof/heapMap, the dump) the map is of. */
  id: string;
  heapId: number;
  /** Built from HPSO: blocks end at object boundaries. */
  perObject: boolean;
  styles: BlockStyle[];
  pieces: Piece[];
  totals: HeapMapTotals;
  legend: LegendEntry[];
  /** The legend's "gap" colour: between and after pieces. */
  gap: RGB;
  /** Base64 PNG, when asked for. */
  png?: string;
  /** Set when the map was drawn from a heap dump (heapinfo.ts). */
  source?: 'dump';
  dumpedAt?: string;
  note?: string;
}

export class HeapMapError extends SchemaError {
  constructor(message: string) {
    super(`heap map: ${message}`);
    this.name = 'HeapMapError';
  }
}

export function cssColor(c: RGB): string {
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}

/** Parses "#rrggbb"; throws naming where. */
function parseColor(v: unknown, where: string): { color: string; rgb: RGB } {
  const s = str(v, where, HeapMapError);
  if (!/^#[0-9a-fA-F]{6}$/.test(s)) {
    throw new HeapMapError(`${where}: colour ${JSON.stringify(s)} is not #rrggbb`);
  }
  return { color: s, rgb: [1, 3, 5].map((i) => parseInt(s.slice(i, i + 2), 16)) as unknown as RGB };
}

/**
 * Decodes a heap map exactly as ddm.HeapMapJSON defines it (the vm/heapMap
 * and hprof/heapMap results, the ddmHeapMap event body): unknown or missing
 * fields, styles outside the kinds and solidities, blocks pointing past the
 * styles, blocks that do not cover their piece, totals that disagree with the
 * blocks and a legend without the gap are errors naming the field. `runs`
 * (the same blocks in DDM's encoding, kept for scripts) is not read.
 */
export function decodeHeapMap(body: unknown): HeapMap {
  const o = fieldsOf(body, '', ['id', 'heapId', 'perObject', 'styles', 'pieces', 'totals', 'legend'], ['png', ...dumpSourceFields], HeapMapError);
  const id = str(o.id, 'id', HeapMapError);
  const heapId = uint(o.heapId, 'heapId', HeapMapError);
  const perObject = bool(o.perObject, 'perObject', HeapMapError);
  const styles = arr(o.styles, 'styles').map((s, i): BlockStyle => {
    const where = `styles[${i}]`;
    const f = fieldsOf(s, where, ['kind', 'solidity', 'color'], [], HeapMapError);
    const kind = str(f.kind, `${where}.kind`, HeapMapError);
    const solidity = str(f.solidity, `${where}.solidity`, HeapMapError);
    const kindIndex = kindNames.indexOf(kind);
    if (kindIndex < 0) {
      throw new HeapMapError(`${where}.kind: ${JSON.stringify(kind)} is not one of ${kindNames.join(', ')}`);
    }
    if (!solidityNames.includes(solidity)) {
      throw new HeapMapError(`${where}.solidity: ${JSON.stringify(solidity)} is not one of ${solidityNames.join(', ')}`);
    }
    return { kind, solidity, kindIndex, free: solidity === 'free', ...parseColor(f.color, `${where}.color`) };
  });
  const pieces = arr(o.pieces, 'pieces').map((p, i): Piece => {
    const where = `pieces[${i}]`;
    const f = fieldsOf(p, where, ['start', 'unitSize', 'units', 'blocks', 'runs'], [], HeapMapError);
    const start = uint(f.start, `${where}.start`, HeapMapError, false);
    const unitSize = uint(f.unitSize, `${where}.unitSize`, HeapMapError);
    const units = uint(f.units, `${where}.units`, HeapMapError);
    str(f.runs, `${where}.runs`, HeapMapError);
    if (unitSize === 0) {
      throw new HeapMapError(`${where}.unitSize: 0`);
    }
    const pairs = arr(f.blocks, `${where}.blocks`);
    if (pairs.length % 2 !== 0) {
      throw new HeapMapError(`${where}.blocks: ${pairs.length} numbers, not (style, units) pairs`);
    }
    const blocks: Block[] = [];
    let covered = 0;
    for (let j = 0; j < pairs.length; j += 2) {
      const bw = `${where}.blocks[${j / 2}]`;
      const style = uint(pairs[j], `${bw} style`, HeapMapError);
      const n = uint(pairs[j + 1], `${bw} units`, HeapMapError);
      if (style >= styles.length) {
        throw new HeapMapError(`${bw}: style ${style} out of range (${styles.length} styles)`);
      }
      if (n === 0) {
        throw new HeapMapError(`${bw}: 0 units`);
      }
      blocks.push({ style, units: n });
      covered += n;
    }
    if (covered !== units) {
      throw new HeapMapError(`${where}: blocks cover ${covered} units, the piece ${units}`);
    }
    return { start, unitSize, units, blocks };
  });
  const tf = fieldsOf(o.totals, 'totals', ['bytes', 'freeBytes', 'byKind'], [], HeapMapError);
  const byKindObj = fieldsOf(tf.byKind, 'totals.byKind', [], kindNames, HeapMapError);
  const byKind: Record<string, number> = {};
  for (const [k, v] of Object.entries(byKindObj)) {
    if (v !== undefined) {
      byKind[k] = uint(v, `totals.byKind[${JSON.stringify(k)}]`, HeapMapError);
    }
  }
  const totals: HeapMapTotals = {
    bytes: uint(tf.bytes, 'totals.bytes', HeapMapError),
    freeBytes: uint(tf.freeBytes, 'totals.freeBytes', HeapMapError),
    byKind,
  };
  const legend = arr(o.legend, 'legend').map((l, i): LegendEntry => {
    const where = `legend[${i}]`;
    const f = fieldsOf(l, where, ['key', 'label', 'detail', 'color'], [], HeapMapError);
    const key = str(f.key, `${where}.key`, HeapMapError);
    if (key !== 'free' && key !== 'gap' && !kindNames.includes(key)) {
      throw new HeapMapError(`${where}.key: ${JSON.stringify(key)} is not "free", "gap" or a kind`);
    }
    return {
      key,
      label: str(f.label, `${where}.label`, HeapMapError),
      detail: str(f.detail, `${where}.detail`, HeapMapError),
      ...parseColor(f.color, `${where}.color`),
    };
  });
  const gap = legend.find((l) => l.key === 'gap');
  if (!gap) {
    throw new HeapMapError('legend: no "gap" entry');
  }
  const map: HeapMap = { id, heapId, perObject, styles, pieces, totals, legend, gap: gap.rgb };
  if (o.png !== undefined) {
    map.png = str(o.png, 'png', HeapMapError);
  }
  Object.assign(map, decodeDumpSource(o, HeapMapError));
  checkTotals(map);
  return map;
}

function arr(v: unknown, where: string): unknown[] {
  if (!Array.isArray(v)) {
    throw new HeapMapError(`${where}: expected an array, got ${JSON.stringify(v) ?? 'nothing'}`);
  }
  return v;
}

/** The totals the backend sent must be the blocks' (bytes, free bytes, bytes by kind). */
function checkTotals(map: HeapMap): void {
  const t = heapTotals(map);
  if (t.spanBytes !== map.totals.bytes) {
    throw new HeapMapError(`totals.bytes: ${map.totals.bytes}, the blocks cover ${t.spanBytes}`);
  }
  if (t.freeBytes !== map.totals.freeBytes) {
    throw new HeapMapError(`totals.freeBytes: ${map.totals.freeBytes}, the blocks hold ${t.freeBytes} free`);
  }
  for (const k of t.kinds) {
    const sent = map.totals.byKind[k.name] ?? 0;
    if (sent !== k.bytes) {
      throw new HeapMapError(`totals.byKind[${JSON.stringify(k.name)}]: ${sent}, the blocks hold ${k.bytes}`);
    }
  }
}

export interface KindTotal {
  /** Index in kindNames. */
  kind: number;
  name: string;
  /** Blocks of this kind (objects when the map is per object, runs otherwise). */
  count: number;
  bytes: number;
  /** Bytes per solidity name. */
  bySolidity: Record<string, number>;
}

export interface HeapTotals {
  kinds: KindTotal[];
  freeBytes: number;
  freeBlocks: number;
  usedBytes: number;
  /** Bytes covered by the pieces (used + free). */
  spanBytes: number;
  /** Address range from the first piece's start to the last piece's end. */
  lowAddress: number;
  highAddress: number;
}

/** Per-kind totals of a heap map, free space apart, like the DDMS heap table. */
export function heapTotals(map: HeapMap): HeapTotals {
  const kinds: KindTotal[] = kindNames.map((name, k) => ({ kind: k, name, count: 0, bytes: 0, bySolidity: {} }));
  let freeBytes = 0;
  let freeBlocks = 0;
  let low = Infinity;
  let high = 0;
  for (const p of map.pieces) {
    low = Math.min(low, p.start);
    high = Math.max(high, p.start + p.units * p.unitSize);
    for (const b of p.blocks) {
      const bytes = b.units * p.unitSize;
      const s = map.styles[b.style];
      if (s.free) {
        freeBytes += bytes;
        freeBlocks++;
        continue;
      }
      const t = kinds[s.kindIndex];
      t.count++;
      t.bytes += bytes;
      t.bySolidity[s.solidity] = (t.bySolidity[s.solidity] ?? 0) + bytes;
    }
  }
  const usedBytes = kinds.reduce((s, k) => s + k.bytes, 0);
  return {
    kinds,
    freeBytes,
    freeBlocks,
    usedBytes,
    spanBytes: usedBytes + freeBytes,
    lowAddress: low === Infinity ? 0 : low,
    highAddress: high,
  };
}

/** The legend's colour for key ("free", "gap" or a kind name). */
export function legendColor(map: HeapMap, key: string): RGB | undefined {
  return map.legend.find((l) => l.key === key)?.rgb;
}

export interface LayoutOptions {
  /** Pixels per row. */
  width: number;
  /** Allocation units per pixel (zoomed out when > 1). */
  unitsPerPixel: number;
}

/**
 * Where a piece lands in the linear layout: each piece starts on a new row,
 * pieces are separated by one gap row, like the backend's PNG and DDMS.
 */
export interface PieceLayout {
  piece: Piece;
  firstRow: number;
  rows: number;
  pixels: number;
}

export interface Layout {
  map: HeapMap;
  width: number;
  unitsPerPixel: number;
  rows: number;
  pieces: PieceLayout[];
}

export function layout(map: HeapMap, opt: LayoutOptions): Layout {
  const width = Math.max(1, Math.floor(opt.width));
  const upp = Math.max(1, Math.floor(opt.unitsPerPixel));
  const pieces: PieceLayout[] = [];
  let row = 0;
  map.pieces.forEach((p, i) => {
    if (i > 0) {
      row++;
    }
    const pixels = Math.ceil(p.units / upp);
    const rows = Math.max(1, Math.ceil(pixels / width));
    pieces.push({ piece: p, firstRow: row, rows, pixels });
    row += rows;
  });
  return { map, width, unitsPerPixel: upp, rows: Math.max(row, 1), pieces };
}

/** The smallest power-of-two units per pixel that keeps the layout within maxRows. */
export function fitUnitsPerPixel(map: HeapMap, width: number, maxRows: number): number {
  const largest = map.pieces.reduce((m, p) => Math.max(m, p.units), 0);
  let upp = 1;
  while (layout(map, { width, unitsPerPixel: upp }).rows > maxRows && upp < largest) {
    upp *= 2;
  }
  return upp;
}

/**
 * Paints the layout into an RGBA buffer (width × rows × 4) in the colours the
 * backend sent: a pixel takes its block's style colour at its first unit,
 * everything else the legend's gap colour.
 */
export function paint(lay: Layout): Uint8ClampedArray<ArrayBuffer> {
  const { width, unitsPerPixel: upp, map } = lay;
  const px = new Uint8ClampedArray(width * lay.rows * 4);
  const set = (i: number, c: RGB): void => {
    px[i * 4] = c[0];
    px[i * 4 + 1] = c[1];
    px[i * 4 + 2] = c[2];
    px[i * 4 + 3] = 255;
  };
  for (let i = 0; i < width * lay.rows; i++) {
    set(i, map.gap);
  }
  for (const pl of lay.pieces) {
    const { blocks, units } = pl.piece;
    if (blocks.length === 0) {
      continue;
    }
    let bi = 0;
    let blockEnd = blocks[0].units;
    let p = 0;
    for (let unit = 0; unit < units; unit += upp, p++) {
      while (bi < blocks.length - 1 && unit >= blockEnd) {
        bi++;
        blockEnd += blocks[bi].units;
      }
      set(pl.firstRow * width + p, map.styles[blocks[bi].style].rgb);
    }
  }
  return px;
}

export interface HitInfo {
  address: number;
  piece: Piece;
  block?: Block;
  style?: BlockStyle;
  /** Address of the block's first byte. */
  blockStart?: number;
}

/** What lies under pixel (x, y) of the layout, for the hover read-out. */
export function hitTest(lay: Layout, x: number, y: number): HitInfo | undefined {
  if (x < 0 || x >= lay.width || y < 0) {
    return undefined;
  }
  for (const pl of lay.pieces) {
    if (y < pl.firstRow || y >= pl.firstRow + pl.rows) {
      continue;
    }
    const pixel = (y - pl.firstRow) * lay.width + x;
    if (pixel >= pl.pixels) {
      return undefined;
    }
    const unit = pixel * lay.unitsPerPixel;
    const p = pl.piece;
    let at = 0;
    for (const b of p.blocks) {
      if (unit < at + b.units) {
        return { address: p.start + unit * p.unitSize, piece: p, block: b, style: lay.map.styles[b.style], blockStart: p.start + at * p.unitSize };
      }
      at += b.units;
    }
    return { address: p.start + unit * p.unitSize, piece: p };
  }
  return undefined;
}

/** The hover read-out of a block: "free, 16 B at 0x…" or "class (hard), 72 B at 0x…". */
export function describeHit(h: HitInfo): string {
  if (!h.block || !h.style || h.blockStart === undefined) {
    return '';
  }
  const size = `${formatBytes(h.block.units * h.piece.unitSize)} at ${formatAddress(h.blockStart)}`;
  return h.style.free ? `free, ${size}` : `${h.style.kind} (${h.style.solidity}), ${size}`;
}

export function formatAddress(a: number): string {
  return '0x' + a.toString(16).toUpperCase().padStart(8, '0');
}

export function formatBytes(n: number): string {
  if (n < 1024) {
    return `${n} B`;
  }
  const units = ['KiB', 'MiB', 'GiB'];
  let v = n;
  let u = -1;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0)} ${units[u]}`;
}
