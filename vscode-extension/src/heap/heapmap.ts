// Heap maps as data: decoding the backend's compact encoding, the DDMS palette,
// per-kind totals and the linear layout the heap view draws. No DOM, no
// vscode: the extension, the webview script and the unit tests share it.

/** The K field of a heap-segment state byte (DDM reference §6). */
export enum Kind {
  Object = 0,
  Class = 1,
  Array1 = 2,
  Array2 = 3,
  Array4 = 4,
  Array8 = 5,
  Unknown = 6,
  Native = 7,
}

/** The S field of a heap-segment state byte (DDM reference §6). */
export enum Solidity {
  Free = 0,
  Hard = 1,
  Soft = 2,
  Weak = 3,
  Phantom = 4,
  Finalize = 5,
  Sweep = 6,
}

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

/** What each kind holds, as the DDMS legend says it. */
export const kindDetails: readonly string[] = [
  'data object',
  'class object',
  'byte[], boolean[]',
  'char[], short[]',
  'int[], float[], Object[]',
  'long[], double[]',
  'unknown object',
  'non-Java object',
];

export const solidityNames: readonly string[] = [
  'free',
  'hard',
  'soft',
  'weak',
  'phantom',
  'finalizable',
  'sweep',
  'solidity(7)',
];

/** A run of allocation units of one state; partial runs already joined. */
export interface Block {
  kind: Kind;
  solidity: Solidity;
  units: number;
}

/** A contiguous stretch of heap. */
export interface Piece {
  /** Address of the first unit (startAddress + offset). */
  start: number;
  /** Bytes per allocation unit. */
  unitSize: number;
  units: number;
  blocks: Block[];
}

export interface HeapMap {
  heapId: number;
  native: boolean;
  /** Built from HPSO: blocks end at object boundaries. */
  perObject: boolean;
  pieces: Piece[];
  /** Seconds since the epoch when the map was taken, when known. */
  timestamp?: number;
}

export type RGB = readonly [number, number, number];

/** Heap expansion area (between pieces, past the end of a piece). */
export const gapColor: RGB = [192, 192, 192];
/** Free space. */
export const freeColor: RGB = [0, 0, 0];
/** The DDMS heap view palette, one colour per kind, for hard-reachable blocks. */
export const kindColors: readonly RGB[] = [
  [0, 0, 255],
  [0, 255, 0],
  [255, 0, 0],
  [255, 128, 0],
  [255, 255, 0],
  [255, 128, 128],
  [255, 0, 255],
  [64, 64, 64],
];

/**
 * The colour of a block: black when free, otherwise its kind's colour washed
 * towards white the weaker its reachability (hard = full colour). The same
 * rule as the backend's `ddmbridge heap --png`.
 */
export function blockColor(kind: number, solidity: number): RGB {
  if ((solidity & 7) === Solidity.Free) {
    return freeColor;
  }
  const c = kindColors[kind & 7];
  const wash = ((solidity & 7) - 1) * 24;
  const mix = (v: number): number => Math.floor((v * (255 - wash) + 255 * wash) / 255);
  return [mix(c[0]), mix(c[1]), mix(c[2])];
}

export function cssColor(c: RGB): string {
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}

export function hexColor(c: RGB): string {
  return '#' + c.map((v) => v.toString(16).padStart(2, '0')).join('');
}

export class HeapMapError extends Error {
  constructor(message: string) {
    super(`heap map: ${message}`);
    this.name = 'HeapMapError';
  }
}

/**
 * Decodes a DDM run list (§6): pairs of (state, units − 1); a state with the
 * P bit (0x80) continues into the next pair, which must carry the same state.
 */
export function decodeRuns(runs: Uint8Array): { blocks: Block[]; units: number } {
  if (runs.length % 2 !== 0) {
    throw new HeapMapError(`run list of odd length ${runs.length}`);
  }
  const blocks: Block[] = [];
  let total = 0;
  for (let i = 0; i < runs.length; ) {
    let state = runs[i];
    let units = runs[i + 1] + 1;
    i += 2;
    while (state & 0x80) {
      if (i >= runs.length) {
        throw new HeapMapError(`partial run (state 0x${hex2(state)}) at the end of the run list`);
      }
      const next = runs[i];
      if ((next & 0x7f) !== (state & 0x7f)) {
        throw new HeapMapError(`partial run 0x${hex2(state)} continued by 0x${hex2(next)} at byte ${i}`);
      }
      state = next;
      units += runs[i + 1] + 1;
      i += 2;
    }
    if (state & 0x40) {
      throw new HeapMapError(`unused bit set in state 0x${hex2(state)} at byte ${i - 2}`);
    }
    pushBlock(blocks, (state >> 3) & 7, state & 7, units);
    total += units;
  }
  return { blocks, units: total };
}

/** Encodes blocks as a DDM run list, splitting blocks over 256 units. */
export function encodeRuns(blocks: readonly Block[]): Uint8Array {
  const out: number[] = [];
  for (const b of blocks) {
    const state = ((b.kind & 7) << 3) | (b.solidity & 7);
    let n = b.units;
    while (n > 256) {
      out.push(state | 0x80, 255);
      n -= 256;
    }
    if (n > 0) {
      out.push(state, n - 1);
    }
  }
  return Uint8Array.from(out);
}

function hex2(v: number): string {
  return v.toString(16).toUpperCase().padStart(2, '0');
}

function pushBlock(blocks: Block[], kind: number, solidity: number, units: number): void {
  blocks.push({ kind: kind as Kind, solidity: solidity as Solidity, units });
}

const b64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const b64Index = new Int16Array(128).fill(-1);
for (let i = 0; i < b64.length; i++) {
  b64Index[b64.charCodeAt(i)] = i;
}
b64Index['-'.charCodeAt(0)] = 62;
b64Index['_'.charCodeAt(0)] = 63;

/** Decodes standard or URL-safe base64 (padding optional) without Buffer or atob. */
export function base64Decode(s: string): Uint8Array {
  const clean = s.replace(/[\s=]/g, '');
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < clean.length; i++) {
    const c = clean.charCodeAt(i);
    const v = c < 128 ? b64Index[c] : -1;
    if (v < 0) {
      throw new HeapMapError(`invalid base64 character ${JSON.stringify(clean[i])} at ${i}`);
    }
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return out.subarray(0, o);
}

export function base64Encode(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    s += b64[(n >> 18) & 63] + b64[(n >> 12) & 63];
    s += i + 1 < bytes.length ? b64[(n >> 6) & 63] : '=';
    s += i + 2 < bytes.length ? b64[n & 63] : '=';
  }
  return s;
}

type Json = unknown;

function isObject(v: Json): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function num(v: Json, what: string): number {
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) {
    return v;
  }
  if (typeof v === 'string' && /^(0x[0-9a-f]+|\d+)$/i.test(v)) {
    return Number(v);
  }
  throw new HeapMapError(`${what}: expected a non-negative number, got ${JSON.stringify(v)}`);
}

function firstOf(o: Record<string, Json>, ...names: string[]): Json {
  for (const n of names) {
    if (o[n] !== undefined) {
      return o[n];
    }
  }
  return undefined;
}

function decodeBlocks(v: Json, where: string): { blocks: Block[]; units: number } {
  if (typeof v === 'string') {
    return decodeRuns(base64Decode(v));
  }
  if (!Array.isArray(v)) {
    throw new HeapMapError(`${where}: expected runs as base64 or an array, got ${typeof v}`);
  }
  const blocks: Block[] = [];
  let units = 0;
  // Either [{kind, solidity, units}, …], [[kind, solidity, units], …]
  // or a flat [state, units, state, units, …].
  if (v.length > 0 && typeof v[0] === 'number') {
    if (v.length % 2 !== 0) {
      throw new HeapMapError(`${where}: flat run array of odd length ${v.length}`);
    }
    for (let i = 0; i < v.length; i += 2) {
      const state = num(v[i], `${where}[${i}]`);
      const n = num(v[i + 1], `${where}[${i + 1}]`);
      pushBlock(blocks, (state >> 3) & 7, state & 7, n);
      units += n;
    }
    return { blocks, units };
  }
  v.forEach((b, i) => {
    let kind: number, solidity: number, n: number;
    if (Array.isArray(b)) {
      [kind, solidity, n] = [num(b[0], `${where}[${i}][0]`), num(b[1], `${where}[${i}][1]`), num(b[2], `${where}[${i}][2]`)];
    } else if (isObject(b)) {
      kind = typeof b.kind === 'string' ? kindFromName(b.kind) : num(b.kind, `${where}[${i}].kind`);
      solidity =
        typeof b.solidity === 'string' ? solidityFromName(b.solidity) : num(b.solidity, `${where}[${i}].solidity`);
      n = num(firstOf(b, 'units', 'n', 'count'), `${where}[${i}].units`);
    } else {
      throw new HeapMapError(`${where}[${i}]: expected a block`);
    }
    pushBlock(blocks, kind, solidity, n);
    units += n;
  });
  return { blocks, units };
}

function kindFromName(s: string): number {
  const i = kindNames.indexOf(s);
  if (i < 0) {
    throw new HeapMapError(`unknown kind ${JSON.stringify(s)}`);
  }
  return i;
}

function solidityFromName(s: string): number {
  const i = solidityNames.indexOf(s);
  if (i < 0) {
    throw new HeapMapError(`unknown solidity ${JSON.stringify(s)}`);
  }
  return i;
}

/**
 * Decodes a heap map as the backend sends it (the `ddmHeapMap` DAP event body
 * or the `vm/heapMap` result): an object with `heapId`, `pieces` (each with
 * `start`, `unitSize`, `units` and the blocks as `runs`, a base64 DDM run list,
 * or as an array), and optional `native`, `perObject`, `timestamp`. A wrapper
 * `{heapMap: …}` or `{map: …}` is unwrapped.
 */
export function decodeHeapMap(body: Json): HeapMap {
  if (!isObject(body)) {
    throw new HeapMapError('expected an object');
  }
  const inner = firstOf(body, 'heapMap', 'map');
  if (isObject(inner) && !Array.isArray(body.pieces)) {
    return decodeHeapMap(inner);
  }
  const rawPieces = firstOf(body, 'pieces', 'segments');
  if (!Array.isArray(rawPieces)) {
    throw new HeapMapError('missing pieces');
  }
  const pieces: Piece[] = rawPieces.map((p, i) => {
    if (!isObject(p)) {
      throw new HeapMapError(`piece ${i}: expected an object`);
    }
    const where = `piece ${i}`;
    const start = num(firstOf(p, 'start', 'address', 'startAddress'), `${where}.start`);
    const unitSize = num(firstOf(p, 'unitSize', 'allocUnitSize'), `${where}.unitSize`);
    const { blocks, units } = decodeBlocks(firstOf(p, 'runs', 'blocks') ?? [], `${where}.runs`);
    const declared = firstOf(p, 'units', 'unitCount');
    if (declared !== undefined && num(declared, `${where}.units`) !== units) {
      throw new HeapMapError(`${where}: runs cover ${units} units, header says ${String(declared)}`);
    }
    if (unitSize === 0) {
      throw new HeapMapError(`${where}: unit size 0`);
    }
    return { start, unitSize, units, blocks };
  });
  pieces.sort((a, b) => a.start - b.start);
  const ts = body.timestamp;
  return {
    heapId: body.heapId === undefined ? 1 : num(body.heapId, 'heapId'),
    native: body.native === true,
    perObject: body.perObject === true,
    pieces,
    timestamp: typeof ts === 'number' ? ts : undefined,
  };
}

export interface KindTotal {
  kind: Kind;
  name: string;
  /** Blocks of this kind (objects when the map is per object, runs otherwise). */
  count: number;
  bytes: number;
  /** Bytes per solidity (index = Solidity). */
  bySolidity: number[];
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
  const kinds: KindTotal[] = kindNames.map((name, k) => ({
    kind: k as Kind,
    name,
    count: 0,
    bytes: 0,
    bySolidity: new Array<number>(8).fill(0),
  }));
  let freeBytes = 0;
  let freeBlocks = 0;
  let low = Infinity;
  let high = 0;
  for (const p of map.pieces) {
    low = Math.min(low, p.start);
    high = Math.max(high, p.start + p.units * p.unitSize);
    for (const b of p.blocks) {
      const bytes = b.units * p.unitSize;
      if (b.solidity === Solidity.Free) {
        freeBytes += bytes;
        freeBlocks++;
        continue;
      }
      const t = kinds[b.kind & 7];
      t.count++;
      t.bytes += bytes;
      t.bySolidity[b.solidity & 7] += bytes;
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

/** One row segment of the linear layout: `units` drawn from `x` on row `y`. */
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
  return { width, unitsPerPixel: upp, rows: Math.max(row, 1), pieces };
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
 * Paints the layout (of a map) into an RGBA buffer (width × rows × 4), a pixel taking the
 * colour of the block at its first unit.
 */
export function paint(lay: Layout): Uint8ClampedArray<ArrayBuffer> {
  const { width, unitsPerPixel: upp } = lay;
  const px = new Uint8ClampedArray(width * lay.rows * 4);
  const set = (i: number, c: RGB): void => {
    px[i * 4] = c[0];
    px[i * 4 + 1] = c[1];
    px[i * 4 + 2] = c[2];
    px[i * 4 + 3] = 255;
  };
  for (let i = 0; i < width * lay.rows; i++) {
    set(i, gapColor);
  }
  const palette = new Map<number, RGB>();
  const colorOf = (b: Block): RGB => {
    const key = ((b.kind & 7) << 3) | (b.solidity & 7);
    let c = palette.get(key);
    if (!c) {
      c = blockColor(b.kind, b.solidity);
      palette.set(key, c);
    }
    return c;
  };
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
      set(pl.firstRow * width + p, colorOf(blocks[bi]));
    }
  }
  return px;
}

export interface HitInfo {
  address: number;
  piece: Piece;
  block?: Block;
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
        return { address: p.start + unit * p.unitSize, piece: p, block: b, blockStart: p.start + at * p.unitSize };
      }
      at += b.units;
    }
    return { address: p.start + unit * p.unitSize, piece: p };
  }
  return undefined;
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
