import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  base64Decode,
  base64Encode,
  blockColor,
  decodeHeapMap,
  decodeRuns,
  encodeRuns,
  fitUnitsPerPixel,
  formatAddress,
  formatBytes,
  gapColor,
  HeapMap,
  HeapMapError,
  heapTotals,
  hitTest,
  Kind,
  kindColors,
  layout,
  paint,
  Solidity,
} from '../../src/heap/heapmap';

// The worked example of the DDM reference §6 (test vector 7): a 300-unit
// char[] split into a partial run, then a 9-unit class object.
const vector7 = Uint8Array.from([0x99, 0xff, 0x19, 0x2b, 0x09, 0x08]);

describe('decodeRuns', () => {
  test('joins partial runs (reference §6 worked example)', () => {
    const { blocks, units } = decodeRuns(vector7);
    assert.deepEqual(blocks, [
      { kind: Kind.Array2, solidity: Solidity.Hard, units: 300 },
      { kind: Kind.Class, solidity: Solidity.Hard, units: 9 },
    ]);
    assert.equal(units, 309);
  });

  test('rejects what §6 forbids', () => {
    assert.throws(() => decodeRuns(Uint8Array.from([0x09])), /odd length 1/);
    assert.throws(() => decodeRuns(Uint8Array.from([0x99, 0xff])), /partial run \(state 0x99\) at the end/);
    assert.throws(() => decodeRuns(Uint8Array.from([0x99, 0xff, 0x09, 0x00])), /partial run 0x99 continued by 0x09/);
    assert.throws(() => decodeRuns(Uint8Array.from([0x49, 0x00])), /unused bit set in state 0x49/);
    assert.throws(() => decodeRuns(Uint8Array.from([0x49, 0x00])), HeapMapError);
  });

  test('encodeRuns is its inverse, splitting blocks over 256 units like ART', () => {
    const blocks = [
      { kind: Kind.Array2, solidity: Solidity.Hard, units: 300 },
      { kind: Kind.Class, solidity: Solidity.Hard, units: 9 },
    ];
    assert.deepEqual(encodeRuns(blocks), vector7);
    const big = [
      { kind: Kind.Object, solidity: Solidity.Free, units: 1000 },
      { kind: Kind.Array8, solidity: Solidity.Weak, units: 256 },
      { kind: Kind.Array1, solidity: Solidity.Hard, units: 257 },
    ];
    assert.deepEqual(decodeRuns(encodeRuns(big)).blocks, big);
    assert.deepEqual([...encodeRuns([{ kind: Kind.Array8, solidity: Solidity.Weak, units: 256 }])], [0x2b, 0xff]);
  });
});

describe('base64', () => {
  test('round trip, with and without padding, URL-safe alphabet', () => {
    for (const n of [0, 1, 2, 3, 4, 5, 255]) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + 11) & 0xff);
      const s = base64Encode(bytes);
      assert.equal(s, Buffer.from(bytes).toString('base64'));
      assert.deepEqual(base64Decode(s), bytes);
      assert.deepEqual(base64Decode(s.replace(/=/g, '')), bytes);
      assert.deepEqual(base64Decode(Buffer.from(bytes).toString('base64url')), bytes);
    }
    assert.throws(() => base64Decode('ab!c'), /invalid base64 character "!"/);
  });
});

describe('decodeHeapMap', () => {
  const body = {
    heapId: 1,
    pieces: [
      { start: 0x12c00a00, unitSize: 8, units: 4, runs: base64Encode(Uint8Array.from([0x00, 0x03])) },
      { start: 0x12c00000, unitSize: 8, units: 309, runs: base64Encode(vector7) },
    ],
  };

  test('reads base64 run lists and sorts pieces by address', () => {
    const m = decodeHeapMap(body);
    assert.equal(m.heapId, 1);
    assert.equal(m.native, false);
    assert.deepEqual(
      m.pieces.map((p) => p.start),
      [0x12c00000, 0x12c00a00],
    );
    assert.equal(m.pieces[0].blocks[0].units, 300);
    assert.equal(m.pieces[1].blocks[0].solidity, Solidity.Free);
  });

  test('accepts the other block spellings and a wrapper', () => {
    const asObjects = decodeHeapMap({
      heapMap: {
        heapId: 2,
        native: true,
        pieces: [{ address: '0x1000', allocUnitSize: 8, blocks: [{ kind: 'class', solidity: 'hard', units: 2 }] }],
      },
    });
    assert.equal(asObjects.heapId, 2);
    assert.equal(asObjects.native, true);
    assert.deepEqual(asObjects.pieces[0], { start: 0x1000, unitSize: 8, units: 2, blocks: [{ kind: 1, solidity: 1, units: 2 }] });
    const asTuples = decodeHeapMap({ pieces: [{ start: 16, unitSize: 8, blocks: [[4, 1, 3], [0, 0, 1]] }] });
    assert.equal(asTuples.pieces[0].units, 4);
    const flat = decodeHeapMap({ pieces: [{ start: 16, unitSize: 8, runs: [0x21, 5] }] });
    assert.deepEqual(flat.pieces[0].blocks, [{ kind: Kind.Array4, solidity: Solidity.Hard, units: 5 }]);
  });

  test('rejects a piece whose runs disagree with its unit count, and garbage', () => {
    assert.throws(
      () => decodeHeapMap({ pieces: [{ start: 0, unitSize: 8, units: 310, runs: base64Encode(vector7) }] }),
      /piece 0: runs cover 309 units, header says 310/,
    );
    assert.throws(() => decodeHeapMap(null), /expected an object/);
    assert.throws(() => decodeHeapMap({}), /missing pieces/);
    assert.throws(() => decodeHeapMap({ pieces: [{ start: -1, unitSize: 8, runs: '' }] }), /piece 0.start/);
    assert.throws(() => decodeHeapMap({ pieces: [{ start: 0, unitSize: 0, runs: '' }] }), /unit size 0/);
  });
});

function sampleMap(): HeapMap {
  return {
    heapId: 1,
    native: false,
    perObject: false,
    pieces: [
      {
        start: 0x1000,
        unitSize: 8,
        units: 10,
        blocks: [
          { kind: Kind.Object, solidity: Solidity.Hard, units: 4 },
          { kind: Kind.Object, solidity: Solidity.Free, units: 2 },
          { kind: Kind.Array1, solidity: Solidity.Hard, units: 3 },
          { kind: Kind.Object, solidity: Solidity.Soft, units: 1 },
        ],
      },
      { start: 0x2000, unitSize: 8, units: 3, blocks: [{ kind: Kind.Class, solidity: Solidity.Hard, units: 3 }] },
    ],
  };
}

describe('colours', () => {
  test('the DDMS palette for hard-reachable blocks, black for free, paler when weaker', () => {
    assert.deepEqual(blockColor(Kind.Object, Solidity.Hard), [0, 0, 255]);
    assert.deepEqual(blockColor(Kind.Class, Solidity.Hard), [0, 255, 0]);
    assert.deepEqual(blockColor(Kind.Array4, Solidity.Hard), [255, 255, 0]);
    assert.deepEqual(blockColor(Kind.Native, Solidity.Hard), [64, 64, 64]);
    assert.deepEqual(blockColor(Kind.Array2, Solidity.Free), [0, 0, 0]);
    // The same wash as the backend's ddm.BlockColor: 24/255 towards white per step.
    assert.deepEqual(blockColor(Kind.Object, Solidity.Soft), [24, 24, 255]);
    assert.deepEqual(blockColor(Kind.Object, Solidity.Sweep), [120, 120, 255]);
    assert.equal(kindColors.length, 8);
  });
});

describe('totals', () => {
  test('per kind, free apart, with the address range', () => {
    const t = heapTotals(sampleMap());
    const obj = t.kinds[Kind.Object];
    assert.equal(obj.count, 2);
    assert.equal(obj.bytes, 40);
    assert.equal(obj.bySolidity[Solidity.Hard], 32);
    assert.equal(obj.bySolidity[Solidity.Soft], 8);
    assert.equal(t.kinds[Kind.Array1].bytes, 24);
    assert.equal(t.kinds[Kind.Class].count, 1);
    assert.equal(t.freeBytes, 16);
    assert.equal(t.freeBlocks, 1);
    assert.equal(t.usedBytes, 40 + 24 + 24);
    assert.equal(t.spanBytes, t.usedBytes + 16);
    assert.equal(t.lowAddress, 0x1000);
    assert.equal(t.highAddress, 0x2000 + 24);
  });

  test('an empty map', () => {
    const t = heapTotals({ heapId: 1, native: false, perObject: false, pieces: [] });
    assert.equal(t.usedBytes, 0);
    assert.equal(t.lowAddress, 0);
  });
});

describe('layout and paint', () => {
  test('each piece on new rows, one gap row between pieces', () => {
    const lay = layout(sampleMap(), { width: 4, unitsPerPixel: 1 });
    assert.deepEqual(
      lay.pieces.map((p) => [p.firstRow, p.rows, p.pixels]),
      [
        [0, 3, 10],
        [4, 1, 3],
      ],
    );
    assert.equal(lay.rows, 5);
    const px = paint(lay);
    const at = (x: number, y: number): number[] => [...px.slice((y * 4 + x) * 4, (y * 4 + x) * 4 + 3)];
    assert.deepEqual(at(0, 0), [0, 0, 255]); // object
    assert.deepEqual(at(0, 1), [0, 0, 0]); // unit 4: free
    assert.deepEqual(at(2, 1), [255, 0, 0]); // unit 6: byte[]
    assert.deepEqual(at(1, 2), [24, 24, 255]); // unit 9: soft object
    assert.deepEqual(at(2, 2), [...gapColor]); // past the piece's end
    assert.deepEqual(at(0, 3), [...gapColor]); // separator row
    assert.deepEqual(at(0, 4), [0, 255, 0]); // class
    assert.equal(px[3], 255);
  });

  test('zoomed out, a pixel takes the block at its first unit', () => {
    const lay = layout(sampleMap(), { width: 4, unitsPerPixel: 2 });
    assert.deepEqual(
      lay.pieces.map((p) => p.pixels),
      [5, 2],
    );
    const px = paint(lay);
    assert.deepEqual([...px.slice(8, 11)], [0, 0, 0]); // pixel 2 = unit 4, free
  });

  test('fitUnitsPerPixel doubles until the rows fit', () => {
    const m: HeapMap = {
      heapId: 1,
      native: false,
      perObject: false,
      pieces: [{ start: 0, unitSize: 8, units: 256 * 100, blocks: [{ kind: 0, solidity: 1, units: 256 * 100 }] }],
    };
    assert.equal(fitUnitsPerPixel(m, 256, 100), 1);
    assert.equal(fitUnitsPerPixel(m, 256, 50), 2);
    assert.equal(fitUnitsPerPixel(m, 256, 10), 16);
  });

  test('hitTest finds the address and block under a pixel', () => {
    const lay = layout(sampleMap(), { width: 4, unitsPerPixel: 1 });
    const h = hitTest(lay, 3, 1)!; // unit 7, in the byte[] at units 6..8
    assert.equal(h.address, 0x1000 + 7 * 8);
    assert.equal(h.block?.kind, Kind.Array1);
    assert.equal(h.blockStart, 0x1000 + 6 * 8);
    assert.equal(hitTest(lay, 2, 2), undefined); // past the end of piece 0
    assert.equal(hitTest(lay, 0, 3), undefined); // separator
    assert.equal(hitTest(lay, 0, 4)?.address, 0x2000);
    assert.equal(hitTest(lay, 9, 0), undefined);
  });
});

describe('formatting', () => {
  test('addresses and sizes', () => {
    assert.equal(formatAddress(0x12c00000), '0x12C00000');
    assert.equal(formatAddress(0x10), '0x00000010');
    assert.equal(formatBytes(512), '512 B');
    assert.equal(formatBytes(2048), '2.00 KiB');
    assert.equal(formatBytes(50 * 1024 * 1024), '50.0 MiB');
    assert.equal(formatBytes(300 * 1024 * 1024), '300 MiB');
  });
});
