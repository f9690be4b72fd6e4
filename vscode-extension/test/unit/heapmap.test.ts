import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import {
  decodeHeapMap,
  describeHit,
  fitUnitsPerPixel,
  formatAddress,
  formatBytes,
  HeapMap,
  HeapMapError,
  heapTotals,
  hitTest,
  kindNames,
  layout,
  legendColor,
  paint,
} from '../../src/heap/heapmap';
import { SchemaError } from '../../src/schema';
import { extRoot } from '../support/fixtures';

// Real schema output: the recording (scripts/record-ddm.mjs) and the
// all-kinds map ddm/extfixtures_test.go generates with ddm.HeapMapOf.
const fixture = (name: string): Record<string, unknown> => JSON.parse(fs.readFileSync(path.join(extRoot, 'test', 'fixtures', name), 'utf8'));
const recorded = fixture('ddm-recording.json').heapMap as Record<string, unknown>;
const allKinds = fixture('heapmap-allkinds.json');
const backendLegend = allKinds.legend as { key: string; color: string }[];

/**
 * A small map in the schema, its styles in colours no palette has: the view
 * must draw what the backend sends.
 */
function sampleBody(): Record<string, unknown> {
  return {
    id: '1',
    heapId: 1,
    perObject: false,
    styles: [
      { kind: 'object', solidity: 'hard', color: '#010203' },
      { kind: 'object', solidity: 'free', color: '#000000' },
      { kind: '1-byte array', solidity: 'hard', color: '#ff0000' },
      { kind: 'object', solidity: 'soft', color: '#1818ff' },
      { kind: 'class', solidity: 'hard', color: '#123456' },
    ],
    pieces: [
      { start: 0x1000, unitSize: 8, units: 10, blocks: [0, 4, 1, 2, 2, 3, 3, 1], runs: 'ignored' },
      { start: 0x2000, unitSize: 8, units: 3, blocks: [4, 3], runs: '' },
    ],
    totals: { bytes: 104, freeBytes: 16, byKind: { object: 40, '1-byte array': 24, class: 24 } },
    legend: structuredClone(backendLegend),
  };
}

function sampleMap(): HeapMap {
  return decodeHeapMap(sampleBody());
}

/** sampleBody() changed by edit, for the rejection tests. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- edits break the body in every way a type would forbid
function broken(edit: (b: Record<string, any>) => void): Record<string, unknown> {
  const b = sampleBody();
  edit(b);
  return b;
}

describe('decodeHeapMap', () => {
  test('reads the recorded map and the generated all-kinds map, totals agreeing with the backend', () => {
    for (const body of [recorded, allKinds]) {
      const m = decodeHeapMap(body);
      assert.equal(m.id, body.id);
      assert.equal(m.heapId, 1);
      assert.ok(m.pieces.length > 0);
      const t = heapTotals(m);
      const sent = body.totals as { bytes: number; freeBytes: number; byKind: Record<string, number> };
      assert.equal(t.spanBytes, sent.bytes);
      assert.equal(t.freeBytes, sent.freeBytes);
      for (const k of t.kinds) {
        assert.equal(k.bytes, sent.byKind[k.name] ?? 0, k.name);
      }
      assert.deepEqual(
        m.legend.map((l) => l.key),
        ['free', ...kindNames, 'gap'],
      );
    }
    const m = decodeHeapMap(allKinds);
    assert.equal(m.styles.length, 8 * 2 + 1, 'every kind hard and weak, and free');
    assert.deepEqual(m.gap, [192, 192, 192], 'the legend\'s gap colour');
  });

  test('keeps styles, blocks and colours as sent', () => {
    const m = sampleMap();
    assert.deepEqual(m.styles[4], { kind: 'class', solidity: 'hard', color: '#123456', rgb: [0x12, 0x34, 0x56], kindIndex: 1, free: false });
    assert.deepEqual(m.pieces[0].blocks, [
      { style: 0, units: 4 },
      { style: 1, units: 2 },
      { style: 2, units: 3 },
      { style: 3, units: 1 },
    ]);
    assert.equal(m.png, undefined);
    assert.equal(decodeHeapMap({ ...sampleBody(), png: 'iVBO' }).png, 'iVBO');
    assert.deepEqual(legendColor(m, 'free'), [0, 0, 0]);
  });

  test('a malformed map is rejected with the field named', () => {
    const cases: [Record<string, unknown> | unknown, RegExp][] = [
      [null, /^heap map: body: expected an object, got null$/],
      [broken((b) => delete b.pieces), /^heap map: pieces: missing$/],
      [broken((b) => (b.pieces[0].blocks[6] = 9)), /^heap map: pieces\[0\]\.blocks\[3\]: style 9 out of range \(5 styles\)$/],
      [broken((b) => (b.pieces[1].blocks = [4, 0, 4, 3])), /^heap map: pieces\[1\]\.blocks\[0\]: 0 units$/],
      [broken((b) => (b.pieces[1].blocks = [4, 3, 4])), /^heap map: pieces\[1\]\.blocks: 3 numbers, not \(style, units\) pairs$/],
      [broken((b) => (b.pieces[1].units = 4)), /^heap map: pieces\[1\]: blocks cover 3 units, the piece 4$/],
      [broken((b) => (b.pieces[1].unitSize = 0)), /^heap map: pieces\[1\]\.unitSize: 0$/],
      [broken((b) => (b.pieces[0].start = -1)), /^heap map: pieces\[0\]\.start: expected a non-negative integer, got -1$/],
      [broken((b) => (b.pieces[0].start = '0x1000')), /^heap map: pieces\[0\]\.start: expected a non-negative integer, got "0x1000"$/],
      [broken((b) => delete b.pieces[0].runs), /^heap map: pieces\[0\]\.runs: missing$/],
      [broken((b) => (b.styles[2].kind = 'byte[]')), /^heap map: styles\[2\]\.kind: "byte\[\]" is not one of object, class/],
      [broken((b) => (b.styles[2].solidity = 1)), /^heap map: styles\[2\]\.solidity: expected a string, got 1$/],
      [broken((b) => (b.styles[2].color = 'red')), /^heap map: styles\[2\]\.color: colour "red" is not #rrggbb$/],
      [broken((b) => (b.totals.byKind.object = 48)), /^heap map: totals\.byKind\["object"\]: 48, the blocks hold 40$/],
      [broken((b) => (b.totals.freeBytes = 8)), /^heap map: totals\.freeBytes: 8, the blocks hold 16 free$/],
      [broken((b) => (b.totals.byKind.strings = 1)), /^heap map: totals\.byKind\."strings": unknown field/],
      [broken((b) => (b.legend = b.legend.filter((l: { key: string }) => l.key !== 'gap'))), /^heap map: legend: no "gap" entry$/],
      [broken((b) => (b.legend[0].key = 'empty')), /^heap map: legend\[0\]\.key: "empty" is not "free", "gap" or a kind$/],
      [broken((b) => (b.perObject = 'no')), /^heap map: perObject: expected a boolean, got "no"$/],
    ];
    for (const [body, want] of cases) {
      assert.throws(() => decodeHeapMap(body), (e: Error) => {
        assert.ok(e instanceof HeapMapError && e instanceof SchemaError, `${e.name}: ${e.message}`);
        assert.match(e.message, want);
        return true;
      });
    }
  });

  test('the old spellings are rejected, not guessed at', () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      // segments for pieces
      [broken((b) => ((b.segments = b.pieces), delete b.pieces)), /^heap map: "segments": unknown field \(expected id, heapId, perObject, styles, pieces, totals, legend, png, source, dumpedAt, note\)$/],
      // a wrapper
      [{ heapMap: sampleBody() }, /^heap map: "heapMap": unknown field/],
      [{ map: sampleBody() }, /^heap map: "map": unknown field/],
      // address / startAddress for start, allocUnitSize for unitSize, unitCount for units
      [broken((b) => ((b.pieces[0].address = 0x1000), delete b.pieces[0].start)), /^heap map: pieces\[0\]\."address": unknown field/],
      [broken((b) => ((b.pieces[0].startAddress = 0x1000), delete b.pieces[0].start)), /^heap map: pieces\[0\]\."startAddress": unknown field/],
      [broken((b) => ((b.pieces[0].allocUnitSize = 8), delete b.pieces[0].unitSize)), /^heap map: pieces\[0\]\."allocUnitSize": unknown field/],
      [broken((b) => ((b.pieces[0].unitCount = 10), delete b.pieces[0].units)), /^heap map: pieces\[0\]\."unitCount": unknown field/],
      // only the DDM run list, no blocks: the run list is not decoded
      [broken((b) => delete b.pieces[1].blocks), /^heap map: pieces\[1\]\.blocks: missing$/],
      [broken((b) => (b.pieces[1].blocks = 'CQI=')), /^heap map: pieces\[1\]\.blocks: expected an array, got "CQI="$/],
      // blocks as objects or tuples
      [broken((b) => (b.pieces[1].blocks = [{ kind: 'class', solidity: 'hard', units: 3 }])), /^heap map: pieces\[1\]\.blocks: 1 numbers, not \(style, units\) pairs$/],
      [broken((b) => (b.pieces[1].blocks = [[1, 1, 3], [1, 1, 0]])), /^heap map: pieces\[1\]\.blocks\[0\] style: expected a non-negative integer, got \[1,1,3\]$/],
      // n / count for units in a style
      [broken((b) => (b.styles[0].count = 1)), /^heap map: styles\[0\]\."count": unknown field/],
      // native / timestamp are not in the schema
      [broken((b) => (b.native = true)), /^heap map: "native": unknown field/],
      [broken((b) => (b.timestamp = 1)), /^heap map: "timestamp": unknown field/],
    ];
    for (const [body, want] of cases) {
      assert.throws(() => decodeHeapMap(body), (e: Error) => e instanceof HeapMapError && want.test(e.message));
    }
  });
});

describe('totals', () => {
  test('per kind, free apart, with the address range', () => {
    const t = heapTotals(sampleMap());
    const obj = t.kinds[0];
    assert.equal(obj.name, 'object');
    assert.equal(obj.count, 2);
    assert.equal(obj.bytes, 40);
    assert.deepEqual(obj.bySolidity, { hard: 32, soft: 8 });
    assert.equal(t.kinds[2].bytes, 24);
    assert.equal(t.kinds[1].count, 1);
    assert.equal(t.freeBytes, 16);
    assert.equal(t.freeBlocks, 1);
    assert.equal(t.usedBytes, 40 + 24 + 24);
    assert.equal(t.spanBytes, t.usedBytes + 16);
    assert.equal(t.lowAddress, 0x1000);
    assert.equal(t.highAddress, 0x2000 + 24);
  });

  test('an empty map', () => {
    const t = heapTotals(decodeHeapMap({ ...sampleBody(), styles: [], pieces: [], totals: { bytes: 0, freeBytes: 0, byKind: {} } }));
    assert.equal(t.usedBytes, 0);
    assert.equal(t.lowAddress, 0);
  });
});

describe('layout and paint', () => {
  test('each piece on new rows, one gap row between pieces, in the colours sent', () => {
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
    assert.deepEqual(at(0, 0), [1, 2, 3]); // object, style 0
    assert.deepEqual(at(0, 1), [0, 0, 0]); // unit 4: free
    assert.deepEqual(at(2, 1), [255, 0, 0]); // unit 6: byte[]
    assert.deepEqual(at(1, 2), [24, 24, 255]); // unit 9: soft object
    assert.deepEqual(at(2, 2), [192, 192, 192]); // past the piece's end: the legend's gap
    assert.deepEqual(at(0, 3), [192, 192, 192]); // separator row
    assert.deepEqual(at(0, 4), [0x12, 0x34, 0x56]); // class
    assert.equal(px[3], 255);
  });

  test('the gap colour is the legend\'s', () => {
    const m = decodeHeapMap(broken((b) => (b.legend.find((l: { key: string }) => l.key === 'gap').color = '#abcdef')));
    const px = paint(layout(m, { width: 4, unitsPerPixel: 1 }));
    assert.deepEqual([...px.slice(12 * 4, 12 * 4 + 3)], [0xab, 0xcd, 0xef]);
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
    const m = decodeHeapMap({
      ...sampleBody(),
      pieces: [{ start: 0, unitSize: 8, units: 256 * 100, blocks: [0, 256 * 100], runs: '' }],
      totals: { bytes: 8 * 256 * 100, freeBytes: 0, byKind: { object: 8 * 256 * 100 } },
    });
    assert.equal(fitUnitsPerPixel(m, 256, 100), 1);
    assert.equal(fitUnitsPerPixel(m, 256, 50), 2);
    assert.equal(fitUnitsPerPixel(m, 256, 10), 16);
  });

  test('hitTest finds the address and block under a pixel', () => {
    const lay = layout(sampleMap(), { width: 4, unitsPerPixel: 1 });
    const h = hitTest(lay, 3, 1)!; // unit 7, in the byte[] at units 6..8
    assert.equal(h.address, 0x1000 + 7 * 8);
    assert.equal(h.style?.kind, '1-byte array');
    assert.equal(h.blockStart, 0x1000 + 6 * 8);
    assert.equal(describeHit(h), '1-byte array (hard), 24 B at 0x00001030');
    assert.equal(describeHit(hitTest(lay, 0, 1)!), 'free, 16 B at 0x00001020');
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
