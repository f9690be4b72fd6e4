// The heap map webview: the DDM heap of the VM the views follow — the heap
// map panel (./heapMapPanel: the bitmap like the DDMS heap view, legend, zoom,
// the address under the pointer, totals by kind) under the HPIF statistics.
// Bundled for the browser; decoding is in ../heap, the colours and legend come
// from the backend with the map.

import { decodeHeapMap, formatBytes, heapTotals } from '../heap/heapmap';
import { decodeHeapInfo, HeapStats, heapUsePercent } from '../heap/heapinfo';
import type { FromWebview, ToWebview, VMRef } from './messages';
import { button, el, getVsCodeApi } from './dom';
import { heapMapPanel } from './heapMapPanel';

const vscode = getVsCodeApi<{ upp?: number; scale?: number }>();

interface State {
  vm: VMRef | null;
  info: HeapStats[];
  error?: string;
  status?: string;
  /** The VM speaks no DDM: why there is no map. */
  noDdm?: string;
}

const saved = vscode.getState() ?? {};
const state: State = { vm: null, info: [] };
const panel = heapMapPanel({
  zoom: saved.upp !== undefined ? { upp: saved.upp, scale: saved.scale ?? 1 } : undefined,
  onZoom: (z) => vscode.setState({ upp: z?.upp, scale: z?.scale }),
});

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
  ...panel.toolbar,
);
const infoTable = el('table', { id: 'heap-info', class: 'grid' });

app.append(title, toolbar, statusLine, el('section', { class: 'heap-info' }, el('h3', {}, 'Heaps (HPIF)'), infoTable), ...panel.body);

// ---- rendering ----

function setStatus(): void {
  if (state.error) {
    statusLine.textContent = state.error;
    statusLine.className = 'status error';
    return;
  }
  statusLine.className = 'status';
  const map = panel.map;
  if (state.noDdm && !map) {
    statusLine.textContent = state.noDdm;
    statusLine.className = 'status no-ddm';
  } else if (state.status) {
    statusLine.textContent = state.status;
  } else if (!map) {
    statusLine.textContent = state.vm ? `Waiting for a heap map from ${state.vm.name}…` : 'No VM selected.';
  } else {
    const t = heapTotals(map);
    statusLine.textContent = `Heap ${map.heapId}: ${map.pieces.length} piece(s), ` + `${formatBytes(t.usedBytes)} used, ${formatBytes(t.freeBytes)} free`;
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

function render(): void {
  title.textContent = state.vm ? `Heap of ${state.vm.name}` : 'Heap';
  setStatus();
  renderInfo();
}

window.addEventListener('message', (ev: MessageEvent<ToWebview>) => {
  const m = ev.data;
  switch (m?.type) {
    case 'vm':
      if (m.vm?.id !== state.vm?.id) {
        panel.show(undefined);
        panel.fit();
        state.info = [];
        state.noDdm = undefined;
      }
      state.vm = m.vm;
      state.error = undefined;
      break;
    case 'heapInfo':
      try {
        state.info = decodeHeapInfo(m.body).heaps;
      } catch (e) {
        state.error = `Cannot read the heap info: ${(e as Error).message}`;
      }
      break;
    case 'heapMap':
      try {
        panel.show(decodeHeapMap(m.body));
        state.error = undefined;
        state.status = undefined;
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
