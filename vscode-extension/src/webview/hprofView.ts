// The HPROF editor's webview: tabs for the class histogram (sortable,
// filterable), the dominator tree (drill down by object), the heap map (the
// DDM map's rendering, legend and colours) and a diff against another dump.
// Bundled for the browser; decoding, sorting and filtering are in ../heap.

import {
  cssColor,
  decodeHeapMap,
  fitUnitsPerPixel,
  formatAddress,
  formatBytes,
  HeapMap,
  heapTotals,
  layout,
  legendColor,
  paint,
  RGB,
} from '../heap/heapmap';
import {
  decodeDiff,
  decodeDominators,
  decodeSummary,
  DomLevel,
  DomNode,
  HprofDiff,
  HprofSummary,
  objectId,
  signed,
  SortKey,
  sumRows,
  TableView,
  viewRows,
} from '../heap/hprof';
import { button, el, getVsCodeApi, text } from './dom';
import { buildLegend } from './legend';
import type { FromWebview, ToWebview } from './messages';

type Tab = 'histogram' | 'dominators' | 'heapmap' | 'diff';

const vscode = getVsCodeApi<{ tab?: Tab; hist?: TableView; diff?: TableView }>();
const saved = vscode.getState() ?? {};

/** At most this many table rows are built (the filter narrows the rest down). */
const maxRows = 2000;

const state = {
  tab: saved.tab ?? ('histogram' as Tab),
  summary: undefined as HprofSummary | undefined,
  hist: saved.hist ?? ({ sort: 'bytes', descending: true, filter: '' } as TableView),
  dom: undefined as DomLevel | undefined,
  /** The objects drilled into, outermost first. */
  trail: [] as DomNode[],
  map: undefined as HeapMap | undefined,
  diff: undefined as HprofDiff | undefined,
  diffView: saved.diff ?? ({ sort: 'bytes', descending: true, filter: '' } as TableView),
  status: 'Reading the heap dump…',
  error: undefined as string | undefined,
};

function post(m: FromWebview): void {
  vscode.postMessage(m);
}

function save(): void {
  vscode.setState({ tab: state.tab, hist: state.hist, diff: state.diffView });
}

const num = (n: number): string => n.toLocaleString('en-US');

// ---- DOM ----

const app = document.getElementById('app')!;
const title = el('h2', { id: 'hprof-title' }, 'Heap dump');
const statusLine = el('div', { id: 'status', class: 'status' }, '');
const tabs: Record<Tab, HTMLButtonElement> = {
  histogram: button('Histogram', { id: 'tab-histogram', role: 'tab' }, () => show('histogram')),
  dominators: button('Dominators', { id: 'tab-dominators', role: 'tab' }, () => show('dominators')),
  heapmap: button('Heap map', { id: 'tab-heapmap', role: 'tab' }, () => show('heapmap')),
  diff: button('Diff', { id: 'tab-diff', role: 'tab' }, () => show('diff')),
};
const tabBar = el('div', { class: 'toolbar tabs', role: 'tablist' }, ...Object.values(tabs));

const histFilter = el('input', { id: 'hist-filter', type: 'search', placeholder: 'Filter classes (words, /regexp/)', 'aria-label': 'Filter classes' });
const histTable = el('table', { id: 'histogram', class: 'grid sortable' });
const histPane = el('section', { id: 'pane-histogram', class: 'pane' }, el('div', { class: 'toolbar' }, histFilter), histTable);

const trail = el('nav', { id: 'dom-trail', class: 'trail', 'aria-label': 'Drill-down path' });
const domTable = el('table', { id: 'dominators', class: 'grid' });
const domPane = el('section', { id: 'pane-dominators', class: 'pane' }, trail, domTable);

const canvas = el('canvas', { id: 'heap-canvas', width: '256', height: '1' }) as HTMLCanvasElement;
const legend = el('ul', { id: 'legend', class: 'legend' });
const mapTotals = el('table', { id: 'totals', class: 'grid' });
const mapPane = el(
  'section',
  { id: 'pane-heapmap', class: 'pane' },
  el('div', { class: 'map-and-legend' }, el('div', { class: 'map' }, el('div', { class: 'canvas-box', id: 'canvas-box' }, canvas)), el('div', { class: 'side' }, el('h3', {}, 'Legend'), legend)),
  el('section', { class: 'totals' }, el('h3', {}, 'By kind'), mapTotals),
);
buildLegend(legend, undefined);

const diffFilter = el('input', { id: 'diff-filter', type: 'search', placeholder: 'Filter classes', 'aria-label': 'Filter classes' });
const diffNote = el('span', { id: 'diff-base', class: 'muted' }, 'No dump to compare with yet.');
const diffTable = el('table', { id: 'diff', class: 'grid sortable' });
const diffPane = el(
  'section',
  { id: 'pane-diff', class: 'pane' },
  el('div', { class: 'toolbar' }, button('Compare with…', { id: 'pick-base', title: 'Pick an earlier .hprof to compare this dump with' }, () => post({ type: 'pickBase' })), diffFilter, diffNote),
  diffTable,
);

const panes: Record<Tab, HTMLElement> = { histogram: histPane, dominators: domPane, heapmap: mapPane, diff: diffPane };
app.append(title, tabBar, statusLine, ...Object.values(panes));

histFilter.value = state.hist.filter;
histFilter.addEventListener('input', () => {
  state.hist.filter = histFilter.value;
  save();
  renderHistogram();
});
diffFilter.value = state.diffView.filter;
diffFilter.addEventListener('input', () => {
  state.diffView.filter = diffFilter.value;
  save();
  renderDiff();
});

// ---- tabs ----

function show(tab: Tab): void {
  state.tab = tab;
  save();
  if (tab === 'dominators' && !state.dom && state.summary) {
    state.status = 'Computing the dominator tree…';
    post({ type: 'dominators' });
  } else if (tab === 'heapmap' && !state.map && state.summary) {
    state.status = 'Drawing the heap map…';
    post({ type: 'heapMap' });
  }
  render();
}

// ---- tables ----

/** A header cell that sorts the table by key when clicked. */
function sortHeader(label: string, key: SortKey, view: TableView, rerender: () => void, numeric = true): HTMLElement {
  const mark = view.sort === key ? (view.descending ? ' ▼' : ' ▲') : '';
  const th = el('th', { 'data-sort': key, class: numeric ? 'num' : '', 'aria-sort': view.sort === key ? (view.descending ? 'descending' : 'ascending') : 'none' }, label + mark);
  th.addEventListener('click', () => {
    if (view.sort === key) {
      view.descending = !view.descending;
    } else {
      view.sort = key;
      view.descending = key !== 'class';
    }
    save();
    rerender();
  });
  return th;
}

function renderHistogram(): void {
  const s = state.summary;
  histTable.replaceChildren();
  if (!s) {
    return;
  }
  const rows = viewRows(s.classes, state.hist);
  histTable.append(
    el(
      'tr',
      {},
      sortHeader('Class', 'class', state.hist, renderHistogram, false),
      sortHeader('Instances', 'instances', state.hist, renderHistogram),
      sortHeader('Shallow size', 'bytes', state.hist, renderHistogram),
      el('th', { class: 'num' }, '% of heap'),
    ),
  );
  for (const r of rows.slice(0, maxRows)) {
    histTable.append(
      el(
        'tr',
        { 'data-class': r.class },
        el('td', { class: 'name' }, r.class),
        el('td', { class: 'num' }, num(r.instances)),
        el('td', { class: 'num', 'data-bytes': String(r.bytes) }, formatBytes(r.bytes)),
        el('td', { class: 'num' }, s.totals.bytes ? `${((100 * r.bytes) / s.totals.bytes).toFixed(1)}%` : '—'),
      ),
    );
  }
  const t = sumRows(rows);
  histTable.append(
    el(
      'tr',
      { class: 'total' },
      el('td', {}, rows.length === s.classes.length ? `${num(rows.length)} classes` : `${num(rows.length)} of ${num(s.classes.length)} classes${rows.length > maxRows ? ` (first ${num(maxRows)} shown)` : ''}`),
      el('td', { class: 'num' }, num(t.instances)),
      el('td', { class: 'num', 'data-bytes': String(t.bytes) }, formatBytes(t.bytes)),
      el('td', {}, ''),
    ),
  );
}

function renderDominators(): void {
  trail.replaceChildren();
  domTable.replaceChildren();
  const d = state.dom;
  if (!d) {
    return;
  }
  const crumb = (label: string, depth: number, object?: number): HTMLElement =>
    depth === state.trail.length
      ? el('span', { class: 'crumb current' }, label)
      : button(label, { class: 'crumb', 'data-depth': String(depth) }, () => {
          state.trail = state.trail.slice(0, depth);
          post(object === undefined ? { type: 'dominators' } : { type: 'dominators', object });
        });
  trail.append(crumb('GC roots', 0));
  state.trail.forEach((o, k) => trail.append(' › ', crumb(`${o.class} ${objectId(o.id)}`, k + 1, o.id)));
  domTable.append(
    el('tr', {}, ...['', 'Object', 'Shallow size', 'Retained size', '% of heap'].map((h, k) => el('th', { class: k >= 2 ? 'num' : '' }, h))),
  );
  for (const o of d.children) {
    const open =
      o.children > 0
        ? button('▸', { class: 'drill', title: `Show the ${num(o.children)} objects it dominates`, 'aria-label': `Drill into ${o.class}` }, () => {
            state.trail.push(o);
            post({ type: 'dominators', object: o.id });
          })
        : el('span', {});
    domTable.append(
      el(
        'tr',
        { 'data-id': String(o.id), 'data-class': o.class },
        el('td', {}, open),
        el('td', { class: 'name' }, `${o.class} `, el('span', { class: 'muted' }, objectId(o.id))),
        el('td', { class: 'num' }, formatBytes(o.size)),
        el('td', { class: 'num', 'data-bytes': String(o.retained) }, formatBytes(o.retained)),
        el('td', { class: 'num' }, d.total ? `${((100 * o.retained) / d.total).toFixed(1)}%` : '—'),
      ),
    );
  }
  if (d.more > 0) {
    domTable.append(el('tr', { class: 'total' }, el('td', {}, ''), el('td', {}, `… and ${num(d.more)} smaller`), el('td', {}, ''), el('td', {}, ''), el('td', {}, '')));
  }
}

function swatch(c: RGB | undefined): HTMLElement {
  const sw = el('span', { class: 'swatch' });
  if (c) {
    sw.style.backgroundColor = cssColor(c);
  }
  return sw;
}

function renderMap(): void {
  mapTotals.replaceChildren();
  const map = state.map;
  if (!map) {
    canvas.width = 256;
    canvas.height = 1;
    return;
  }
  const upp = fitUnitsPerPixel(map, 256, 512);
  const lay = layout(map, { width: 256, unitsPerPixel: upp });
  canvas.width = lay.width;
  canvas.height = lay.rows;
  const scale = Math.max(1, Math.min(4, Math.floor(512 / Math.max(1, lay.rows)), Math.floor((document.body.clientWidth - 300) / 256)));
  canvas.style.width = `${lay.width * scale}px`;
  canvas.style.height = `${lay.rows * scale}px`;
  canvas.dataset.upp = String(upp);
  canvas.dataset.scale = String(scale);
  canvas.getContext('2d')?.putImageData(new ImageData(paint(lay), lay.width, lay.rows), 0, 0);
  const t = heapTotals(map);
  mapTotals.append(el('tr', {}, ...['', 'Kind', 'Count', 'Total size'].map((h) => el('th', {}, h))));
  for (const k of t.kinds) {
    if (k.count === 0) {
      continue;
    }
    mapTotals.append(el('tr', { 'data-kind': k.name }, el('td', {}, swatch(legendColor(map, k.name))), el('td', {}, k.name), el('td', { class: 'num' }, num(k.count)), el('td', { class: 'num', 'data-bytes': String(k.bytes) }, formatBytes(k.bytes))));
  }
  mapTotals.append(
    el('tr', { 'data-kind': 'free' }, el('td', {}, swatch(legendColor(map, 'free'))), el('td', {}, 'free'), el('td', { class: 'num' }, num(t.freeBlocks)), el('td', { class: 'num', 'data-bytes': String(t.freeBytes) }, formatBytes(t.freeBytes))),
    el('tr', { class: 'total' }, el('td', {}, ''), el('td', {}, 'total used'), el('td', { class: 'num' }, `${formatAddress(t.lowAddress)}–${formatAddress(t.highAddress)}`), el('td', { class: 'num', 'data-bytes': String(t.usedBytes) }, formatBytes(t.usedBytes))),
  );
}

function renderDiff(): void {
  diffTable.replaceChildren();
  const d = state.diff;
  if (!d) {
    return;
  }
  text(diffNote, `Changes since ${d.base}`);
  const rows = viewRows(d.classes, state.diffView);
  diffTable.append(
    el(
      'tr',
      {},
      sortHeader('Class', 'class', state.diffView, renderDiff, false),
      sortHeader('Δ Instances', 'instances', state.diffView, renderDiff),
      sortHeader('Δ Shallow size', 'bytes', state.diffView, renderDiff),
      el('th', { class: 'num' }, 'Before'),
      el('th', { class: 'num' }, 'After'),
    ),
  );
  for (const r of rows.slice(0, maxRows)) {
    diffTable.append(
      el(
        'tr',
        { 'data-class': r.class, class: r.bytes > 0 ? 'grew' : r.bytes < 0 ? 'shrank' : '' },
        el('td', { class: 'name' }, r.class),
        el('td', { class: 'num', 'data-delta': String(r.instances) }, signed(r.instances)),
        el('td', { class: 'num', 'data-delta': String(r.bytes) }, signed(r.bytes, formatBytes)),
        el('td', { class: 'num' }, `${num(r.oldInstances)} · ${formatBytes(r.oldBytes)}`),
        el('td', { class: 'num' }, `${num(r.newInstances)} · ${formatBytes(r.newBytes)}`),
      ),
    );
  }
  if (rows.length === 0) {
    diffTable.append(el('tr', {}, el('td', { class: 'muted' }, d.classes.length ? 'No changed class matches the filter.' : 'No class changed.')));
  }
}

function render(): void {
  const s = state.summary;
  title.textContent = s ? `Heap dump ${s.path.split(/[\\/]/).pop()}` : 'Heap dump';
  if (state.error) {
    statusLine.textContent = state.error;
    statusLine.className = 'status error';
  } else {
    statusLine.className = 'status';
    statusLine.textContent = state.status;
  }
  for (const [k, b] of Object.entries(tabs) as [Tab, HTMLButtonElement][]) {
    b.setAttribute('aria-selected', String(k === state.tab));
    b.classList.toggle('selected', k === state.tab);
    panes[k].hidden = k !== state.tab;
  }
  renderHistogram();
  renderDominators();
  renderMap();
  renderDiff();
}

function summaryStatus(s: HprofSummary): string {
  return `${s.format}: ${num(s.objects)} objects of ${num(s.totals.classes)} classes, ${formatBytes(s.totals.bytes)}`;
}

window.addEventListener('message', (ev: MessageEvent<ToWebview>) => {
  const m = ev.data;
  try {
    switch (m?.type) {
      case 'summary':
        state.summary = decodeSummary(m.body);
        state.error = undefined;
        state.status = summaryStatus(state.summary);
        show(state.tab); // fetch what the saved tab needs
        return;
      case 'dominators':
        state.dom = decodeDominators(m.body);
        state.error = undefined;
        if (!state.dom.object) {
          state.trail = [];
        }
        state.status = `Dominator tree: ${num(state.dom.reachable)} reachable objects retain ${formatBytes(state.dom.total)}`;
        break;
      case 'heapMap':
        state.map = decodeHeapMap(m.body);
        buildLegend(legend, state.map.legend);
        state.error = undefined;
        state.status = `Heap map: ${state.map.pieces.length} piece(s) drawn from object addresses`;
        break;
      case 'diff':
        state.diff = decodeDiff(m.body);
        state.error = undefined;
        state.status = `Diff: ${num(state.diff.classes.length)} classes changed`;
        break;
      case 'status':
        state.status = m.message;
        break;
      case 'error':
        state.error = m.message;
        break;
      default:
        return;
    }
  } catch (e) {
    state.error = `Cannot read the answer: ${(e as Error).message}`;
  }
  render();
});

render();
post({ type: 'ready' });
