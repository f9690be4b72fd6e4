// The heap map webview: draws the heap bitmap like the DDMS heap view, with a
// legend, zoom, the address under the pointer and per-kind totals. Bundled
// for the browser; decoding is in ../heap, the colours and legend come from
// the backend with the map.

import {
  cssColor,
  decodeHeapMap,
  describeHit,
  fitUnitsPerPixel,
  formatAddress,
  formatBytes,
  HeapMap,
  heapTotals,
  hitTest,
  Layout,
  layout,
  legendColor,
  paint,
} from '../heap/heapmap';
import { decodeHeapInfo, dumpSourceText, HeapStats, heapUsePercent } from '../heap/heapinfo';
import type { FromWebview, ToWebview, VMRef } from './messages';
import { button, el, getVsCodeApi, text } from './dom';
import { buildLegend } from './legend';

const vscode = getVsCodeApi<{ upp?: number; scale?: number; width?: number }>();

const rowWidth = 256;
const maxScale = 8;

interface State {
  vm: VMRef | null;
  map?: HeapMap;
  info: HeapStats[];
  lay?: Layout;
  upp: number;
  scale: number;
  autoFit: boolean;
  error?: string;
  status?: string;
  /** The VM speaks no DDM: why there is no map. */
  noDdm?: string;
  /** The data came from a heap dump (current Android, HotSpot): when, and why. */
  dump?: string;
}

const saved = vscode.getState() ?? {};
const state: State = {
  vm: null,
  info: [],
  upp: saved.upp ?? 1,
  scale: saved.scale ?? 2,
  autoFit: saved.upp === undefined,
};

function post(m: FromWebview): void {
  vscode.postMessage(m);
}

// ---- DOM ----

const app = document.getElementById('app')!;
const title = el('h2', { id: 'vm-title' }, 'Heap');
const statusLine = el('div', { id: 'status', class: 'status' }, 'Waiting for heap data…');
const toolbar = el(
  'div',
  { class: 'toolbar', role: 'toolbar' },
  button('Cause GC', { id: 'gc', title: 'Run a GC in the VM; a fresh heap map follows' }, () => post({ type: 'gc' })),
  button('Refresh', { id: 'refresh', title: 'Ask for heap info and the heap map again' }, () => post({ type: 'refresh' })),
  button('Dump Heap', { id: 'dump-heap', title: 'Write an HPROF dump of the VM and open it (any VM)' }, () => post({ type: 'dumpHeap' })),
  el('span', { class: 'sep' }),
  button('−', { id: 'zoom-out', title: 'Zoom out', 'aria-label': 'Zoom out' }, () => zoom(-1)),
  el('span', { id: 'zoom-level', class: 'zoom' }, ''),
  button('+', { id: 'zoom-in', title: 'Zoom in', 'aria-label': 'Zoom in' }, () => zoom(1)),
  button('Fit', { id: 'zoom-fit', title: 'Fit the whole heap' }, () => {
    state.autoFit = true;
    redraw();
  }),
);
const infoTable = el('table', { id: 'heap-info', class: 'grid' });
const sourceLine = el('div', { id: 'heap-source', class: 'muted' }, '');
const infoTitle = el('h3', {}, 'Heaps (HPIF)');
const canvas = el('canvas', { id: 'heap-canvas', width: '256', height: '1' }) as HTMLCanvasElement;
const canvasBox = el('div', { class: 'canvas-box', id: 'canvas-box' }, canvas);
const hover = el('div', { id: 'hover', class: 'hover' }, 'Point at the map for an address.');
const legend = el('ul', { id: 'legend', class: 'legend' });
const totals = el('table', { id: 'totals', class: 'grid' });

app.append(
  title,
  toolbar,
  statusLine,
  sourceLine,
  el('section', { class: 'heap-info' }, infoTitle, infoTable),
  el(
    'section',
    { class: 'map-and-legend' },
    el('div', { class: 'map' }, canvasBox, hover),
    el('div', { class: 'side' }, el('h3', {}, 'Legend'), legend),
  ),
  el('section', { class: 'totals' }, el('h3', {}, 'By kind'), totals),
);

buildLegend(legend, undefined);

// ---- rendering ----

function setStatus(): void {
  if (state.error) {
    statusLine.textContent = state.error;
    statusLine.className = 'status error';
    return;
  }
  statusLine.className = 'status';
  if (state.noDdm && !state.map) {
    statusLine.textContent = state.noDdm;
    statusLine.className = 'status no-ddm';
  } else if (state.status) {
    statusLine.textContent = state.status;
  } else if (!state.map) {
    statusLine.textContent = state.vm ? `Waiting for a heap map from ${state.vm.name}…` : 'No VM selected.';
  } else {
    const t = heapTotals(state.map);
    statusLine.textContent =
      `Heap ${state.map.heapId}: ${state.map.pieces.length} piece(s), ` +
      `${formatBytes(t.usedBytes)} used, ${formatBytes(t.freeBytes)} free`;
  }
}

function renderInfo(): void {
  infoTable.replaceChildren();
  if (state.info.length === 0) {
    infoTable.append(el('tr', {}, el('td', { class: 'muted' }, 'No heap statistics yet.')));
    return;
  }
  infoTable.append(
    el('tr', {}, ...['Heap', 'Size', 'Allocated', '% used', 'Objects', 'Max'].map((h) => el('th', {}, h))),
  );
  for (const h of state.info) {
    infoTable.append(
      el(
        'tr',
        { 'data-heap': String(h.heapId) },
        el('td', {}, String(h.heapId)),
        el('td', { class: 'num' }, formatBytes(h.sizeBytes)),
        el('td', { class: 'num' }, formatBytes(h.allocatedBytes)),
        el('td', { class: 'num' }, `${heapUsePercent(h).toFixed(1)}%`),
        el('td', { class: 'num' }, h.allocatedObjects.toLocaleString('en-US')),
        el('td', { class: 'num' }, h.maxBytes ? formatBytes(h.maxBytes) : '—'),
      ),
    );
  }
}

function swatch(c: readonly [number, number, number] | undefined): HTMLElement {
  const sw = el('span', { class: 'swatch' });
  if (c) {
    sw.style.backgroundColor = cssColor(c);
  }
  return sw;
}

function renderTotals(): void {
  totals.replaceChildren();
  const map = state.map;
  if (!map) {
    return;
  }
  const t = heapTotals(map);
  totals.append(el('tr', {}, ...['', 'Kind', 'Count', 'Total size', '% of used'].map((h) => el('th', {}, h))));
  for (const k of t.kinds) {
    if (k.count === 0) {
      continue;
    }
    totals.append(
      el(
        'tr',
        { 'data-kind': k.name },
        el('td', {}, swatch(legendColor(map, k.name))),
        el('td', {}, k.name),
        el('td', { class: 'num' }, k.count.toLocaleString('en-US')),
        el('td', { class: 'num', 'data-bytes': String(k.bytes) }, formatBytes(k.bytes)),
        el('td', { class: 'num' }, t.usedBytes ? `${((100 * k.bytes) / t.usedBytes).toFixed(1)}%` : '—'),
      ),
    );
  }
  totals.append(
    el(
      'tr',
      { 'data-kind': 'free' },
      el('td', {}, swatch(legendColor(map, 'free'))),
      el('td', {}, 'free'),
      el('td', { class: 'num' }, t.freeBlocks.toLocaleString('en-US')),
      el('td', { class: 'num', 'data-bytes': String(t.freeBytes) }, formatBytes(t.freeBytes)),
      el('td', {}, ''),
    ),
    el(
      'tr',
      { class: 'total' },
      el('td', {}, ''),
      el('td', {}, 'total used'),
      el('td', { class: 'num' }, t.kinds.reduce((s, k) => s + k.count, 0).toLocaleString('en-US')),
      el('td', { class: 'num', 'data-bytes': String(t.usedBytes) }, formatBytes(t.usedBytes)),
      el('td', {}, `${formatAddress(t.lowAddress)}–${formatAddress(t.highAddress)}`),
    ),
  );
}

function redraw(): void {
  const map = state.map;
  if (!map) {
    canvas.width = rowWidth;
    canvas.height = 1;
    canvasBox.classList.add('empty');
    return;
  }
  canvasBox.classList.remove('empty');
  if (state.autoFit) {
    state.upp = fitUnitsPerPixel(map, rowWidth, 512);
    state.scale = state.upp > 1 ? 1 : Math.min(maxScale, Math.max(1, Math.floor(512 / layout(map, { width: rowWidth, unitsPerPixel: 1 }).rows)));
    const byWidth = Math.floor((document.body.clientWidth - 40) / rowWidth);
    state.scale = Math.max(1, Math.min(state.scale, 4, byWidth));
  }
  const lay = layout(map, { width: rowWidth, unitsPerPixel: state.upp });
  state.lay = lay;
  const px = paint(lay);
  canvas.width = lay.width;
  canvas.height = lay.rows;
  canvas.style.width = `${lay.width * state.scale}px`;
  canvas.style.height = `${lay.rows * state.scale}px`;
  canvas.dataset.upp = String(lay.unitsPerPixel);
  canvas.dataset.scale = String(state.scale);
  const ctx = canvas.getContext('2d');
  if (ctx) {
    ctx.putImageData(new ImageData(px, lay.width, lay.rows), 0, 0);
  }
  const unitBytes = map.pieces[0]?.unitSize ?? 8;
  text(
    document.getElementById('zoom-level')!,
    // Zoomed in, one unit of the heap is drawn scale pixels wide: say so,
    // rather than a pixel's bytes at ×1.
    state.upp > 1
      ? `1 px = ${state.upp * unitBytes} B`
      : state.scale > 1
        ? `×${state.scale} (${state.scale} px = ${unitBytes} B)`
        : `×1 (1 px = ${unitBytes} B)`,
  );
  vscode.setState({ upp: state.autoFit ? undefined : state.upp, scale: state.scale });
}

function zoom(dir: 1 | -1): void {
  state.autoFit = false;
  if (dir > 0) {
    if (state.upp > 1) {
      state.upp /= 2;
    } else {
      state.scale = Math.min(maxScale, state.scale * 2);
    }
  } else if (state.scale > 1) {
    state.scale = Math.max(1, state.scale / 2);
  } else {
    state.upp *= 2;
  }
  redraw();
}

canvas.addEventListener('mousemove', (ev) => {
  const lay = state.lay;
  if (!lay) {
    return;
  }
  const r = canvas.getBoundingClientRect();
  const x = Math.floor(((ev.clientX - r.left) / r.width) * lay.width);
  const y = Math.floor(((ev.clientY - r.top) / r.height) * lay.rows);
  const hit = hitTest(lay, x, y);
  if (!hit) {
    hover.textContent = 'heap expansion area';
    return;
  }
  hover.textContent = `${formatAddress(hit.address)} — ${describeHit(hit)}`;
});
// Re-fit when the panel is resized (only while fitting automatically).
let resizeTimer: ReturnType<typeof setTimeout> | undefined;
new ResizeObserver(() => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    if (state.autoFit && state.map) {
      redraw();
    }
  }, 100);
}).observe(document.body);

canvas.addEventListener('mouseleave', () => {
  hover.textContent = 'Point at the map for an address.';
});

function render(): void {
  title.textContent = state.vm ? `Heap of ${state.vm.name}` : 'Heap';
  sourceLine.textContent = state.dump ?? '';
  infoTitle.textContent = state.dump ? 'Heaps (from a heap dump)' : 'Heaps (HPIF)';
  setStatus();
  renderInfo();
  renderTotals();
  redraw();
}

window.addEventListener('message', (ev: MessageEvent<ToWebview>) => {
  const m = ev.data;
  switch (m?.type) {
    case 'vm':
      if (m.vm?.id !== state.vm?.id) {
        state.map = undefined;
        buildLegend(legend, undefined);
        state.info = [];
        state.autoFit = true;
        state.noDdm = undefined;
        state.dump = undefined;
      }
      state.vm = m.vm;
      state.error = undefined;
      break;
    case 'heapInfo':
      try {
        const hi = decodeHeapInfo(m.body);
        state.info = hi.heaps;
        state.dump = dumpSourceText(hi) || undefined;
      } catch (e) {
        state.error = `Cannot read the heap info: ${(e as Error).message}`;
      }
      break;
    case 'heapMap':
      try {
        state.map = decodeHeapMap(m.body);
        state.dump = dumpSourceText(state.map) || state.dump;
        state.error = undefined;
        state.status = undefined;
        buildLegend(legend, state.map.legend);
      } catch (e) {
        state.error = `Cannot read the heap map: ${(e as Error).message}`;
      }
      break;
    case 'status':
      state.status = m.message;
      break;
    case 'noDdm':
      state.noDdm = m.message;
      state.error = undefined;
      break;
    case 'error':
      state.error = m.message;
      break;
    default:
      return;
  }
  render();
});

render();
post({ type: 'ready' });
