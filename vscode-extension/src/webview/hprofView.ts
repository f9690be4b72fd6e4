// The HPROF editor's webview: tabs for the class histogram (sortable,
// filterable, with each class's retained size), why objects are alive (the
// shortest paths from the GC roots to a class's instances or to one object,
// merged into a tree as Eclipse MAT does; a page of a class's instances or of
// an object's incoming references), the dominator tree (drill down by
// object), the heap map (the DDM map's rendering, legend and colours, with
// zoom, a scale of addresses and the address under the pointer) and a diff
// against another dump. Bundled for the browser; decoding, sorting and
// filtering are in ../heap.

import { decodeHeapMap, formatBytes } from '../heap/heapmap';
import {
  decodeDiff,
  decodeDominators,
  decodeIncoming,
  decodeInstances,
  decodePaths,
  decodeProgress,
  decodeRetained,
  decodeSummary,
  DomLevel,
  DomNode,
  HprofDiff,
  HprofIncoming,
  HprofInstances,
  HprofPaths,
  HprofProgress,
  HprofSummary,
  ObjectRow,
  PathNode,
  objectId,
  signed,
  SortKey,
  sumRows,
  TableView,
  viewRows,
} from '../heap/hprof';
import { button, el, getVsCodeApi, text } from './dom';
import { heapMapPanel, Zoom } from './heapMapPanel';
import type { FromWebview, ToWebview } from './messages';

type Tab = 'histogram' | 'paths' | 'objects' | 'dominators' | 'heapmap' | 'diff';

const vscode = getVsCodeApi<{ tab?: Tab; hist?: TableView; diff?: TableView; zoom?: Zoom }>();
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
  diff: undefined as HprofDiff | undefined,
  diffView: saved.diff ?? ({ sort: 'bytes', descending: true, filter: '' } as TableView),
  /** Retained size by class, once the backend has the dominator tree. */
  retained: undefined as Map<string, number> | undefined,
  paths: undefined as HprofPaths | undefined,
  /** The objects pane: a class's instances or an object's referrers. */
  objects: undefined as { kind: 'instances'; body: HprofInstances } | { kind: 'incoming'; body: HprofIncoming } | undefined,
  /** The heap map's zoom; undefined while fitted. */
  zoom: saved.zoom,
  status: 'Reading the heap dump…',
  error: undefined as string | undefined,
  /** How far the work the view waits for is (hprof/progress); undefined when none is under way. */
  progress: undefined as HprofProgress | undefined,
  /** The user cancelled the retained sizes' work: offer to start it again. */
  stopped: false,
};

function post(m: FromWebview): void {
  vscode.postMessage(m);
}

function save(): void {
  vscode.setState({ tab: state.tab, hist: state.hist, diff: state.diffView, zoom: state.zoom });
}

const num = (n: number): string => n.toLocaleString('en-US');

// ---- DOM ----

const app = document.getElementById('app')!;
const title = el('h2', { id: 'hprof-title' }, 'Heap dump');
const statusLine = el('div', { id: 'status', class: 'status' }, '');
// While the dump is read, parsed or its dominator tree computed: how far,
// and a Cancel button (hprof/cancel); once stopped, a button to start the
// retained sizes again.
const progressBar = el('progress', { id: 'hprof-progress', max: '100' });
const progressLabel = el('span', { id: 'hprof-progress-label', class: 'muted' }, '');
const cancelButton = button('Cancel', { id: 'hprof-cancel', title: 'Stop reading this dump or computing its dominator tree' }, () => {
  post({ type: 'cancel' });
});
const restartButton = button('Compute retained sizes', { id: 'hprof-restart', title: 'Parse the dump and compute the dominator tree' }, () => {
  state.stopped = false;
  // Stopped before the histogram came: it first (its answer asks for the
  // retained sizes).
  post(state.summary ? { type: 'retained' } : { type: 'summary' });
  if (state.tab === 'dominators' && !state.dom) {
    post({ type: 'dominators' }); // stopped too
  }
  render();
});
const progressRow = el('div', { id: 'hprof-work', class: 'toolbar' }, progressBar, progressLabel, cancelButton, restartButton);
const tabs: Record<Tab, HTMLButtonElement> = {
  histogram: button('Histogram', { id: 'tab-histogram', role: 'tab' }, () => show('histogram')),
  paths: button('Paths to GC roots', { id: 'tab-paths', role: 'tab' }, () => show('paths')),
  objects: button('Objects', { id: 'tab-objects', role: 'tab' }, () => show('objects')),
  dominators: button('Dominators', { id: 'tab-dominators', role: 'tab' }, () => show('dominators')),
  heapmap: button('Heap map', { id: 'tab-heapmap', role: 'tab' }, () => show('heapmap')),
  diff: button('Diff', { id: 'tab-diff', role: 'tab' }, () => show('diff')),
};
const tabBar = el('div', { class: 'toolbar tabs', role: 'tablist' }, ...Object.values(tabs));

const histFilter = el('input', { id: 'hist-filter', type: 'search', placeholder: 'Filter classes (words, /regexp/)', 'aria-label': 'Filter classes' });
const histTable = el('table', { id: 'histogram', class: 'grid sortable' });
const histPane = el('section', { id: 'pane-histogram', class: 'pane' }, el('div', { class: 'toolbar' }, histFilter), histTable);

const pathsTitle = el('div', { id: 'paths-title', class: 'muted' }, 'Pick a class in the histogram (Paths) or an object (Paths) to see why it is alive.');
const pathsTree = el('ul', { id: 'paths', class: 'tree' });
const pathsPane = el('section', { id: 'pane-paths', class: 'pane' }, pathsTitle, pathsTree);

const objectsTitle = el('div', { id: 'objects-title', class: 'muted' }, 'Pick a class in the histogram (Instances) or an object (Incoming).');
const objectsTable = el('table', { id: 'objects', class: 'grid' });
const pagePrev = button('‹ Previous', { id: 'page-prev' }, () => page(-1));
const pageNext = button('Next ›', { id: 'page-next' }, () => page(1));
const objectsPane = el('section', { id: 'pane-objects', class: 'pane' }, el('div', { class: 'toolbar' }, pagePrev, pageNext, objectsTitle), objectsTable);

const trail = el('nav', { id: 'dom-trail', class: 'trail', 'aria-label': 'Drill-down path' });
const domTable = el('table', { id: 'dominators', class: 'grid' });
const domPane = el('section', { id: 'pane-dominators', class: 'pane' }, trail, domTable);

const map = heapMapPanel({
  zoom: state.zoom,
  onZoom: (z) => {
    state.zoom = z;
    save();
  },
});
const mapPane = el('section', { id: 'pane-heapmap', class: 'pane' }, el('div', { class: 'toolbar', role: 'toolbar' }, ...map.toolbar), ...map.body);

const diffFilter = el('input', { id: 'diff-filter', type: 'search', placeholder: 'Filter classes', 'aria-label': 'Filter classes' });
const diffNote = el('span', { id: 'diff-base', class: 'muted' }, 'No dump to compare with yet.');
const diffTable = el('table', { id: 'diff', class: 'grid sortable' });
const diffPane = el(
  'section',
  { id: 'pane-diff', class: 'pane' },
  el('div', { class: 'toolbar' }, button('Compare with…', { id: 'pick-base', title: 'Pick an earlier .hprof to compare this dump with' }, () => post({ type: 'pickBase' })), diffFilter, diffNote),
  diffTable,
);

const panes: Record<Tab, HTMLElement> = { histogram: histPane, paths: pathsPane, objects: objectsPane, dominators: domPane, heapmap: mapPane, diff: diffPane };
app.append(title, tabBar, statusLine, progressRow, ...Object.values(panes));

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
  } else if (tab === 'heapmap' && !map.map && state.summary) {
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
  const rows = viewRows(
    s.classes.map((c) => ({ ...c, retained: state.retained?.get(c.class) })),
    state.hist,
  );
  histTable.append(
    el(
      'tr',
      {},
      sortHeader('Class', 'class', state.hist, renderHistogram, false),
      sortHeader('Instances', 'instances', state.hist, renderHistogram),
      sortHeader('Shallow size', 'bytes', state.hist, renderHistogram),
      sortHeader('Retained size', 'retained', state.hist, renderHistogram),
      el('th', { class: 'num' }, '% of heap'),
      el('th', {}, ''),
    ),
  );
  const ret = state.retained;
  for (const r of rows.slice(0, maxRows)) {
    const kept = r.retained;
    histTable.append(
      el(
        'tr',
        { 'data-class': r.class },
        el('td', { class: 'name' }, r.class),
        el('td', { class: 'num' }, num(r.instances)),
        el('td', { class: 'num', 'data-bytes': String(r.bytes) }, formatBytes(r.bytes)),
        ret
          ? el('td', { class: 'num', 'data-retained': String(kept ?? 0), title: 'What the instances keep alive together (the dominator tree)' }, formatBytes(kept ?? 0))
          : el('td', { class: 'num muted', title: 'Computing the dominator tree…' }, '…'),
        el('td', { class: 'num' }, s.totals.bytes ? `${((100 * r.bytes) / s.totals.bytes).toFixed(1)}%` : '—'),
        el(
          'td',
          { class: 'actions' },
          button('Paths', { class: 'paths', title: `Shortest paths from the GC roots to the instances of ${r.class} (weak and soft references excluded)` }, () => askPaths({ class: r.class })),
          button('Instances', { class: 'instances', title: `The instances of ${r.class}, largest retained size first` }, () => askInstances(r.class, 0)),
        ),
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
      el('td', {}, ''),
      el('td', {}, ''),
    ),
  );
}

// ---- why alive: paths, instances, incoming references ----

function askPaths(target: { class?: string; object?: number }): void {
  state.paths = undefined;
  state.status = `Looking for the shortest paths from the GC roots to ${target.class ?? objectId(target.object ?? 0)}…`;
  post({ type: 'paths', ...target });
  show('paths');
}

function askInstances(cls: string, offset: number): void {
  state.status = `Listing the instances of ${cls}…`;
  post({ type: 'instances', class: cls, offset });
  show('objects');
}

function askIncoming(object: number, offset: number): void {
  state.status = `Looking for the objects that refer to ${objectId(object)}…`;
  post({ type: 'incoming', object, offset });
  show('objects');
}

/** The page size of the objects pane (the backend's default). */
const pageSize = 100;

function page(dir: 1 | -1): void {
  const o = state.objects;
  if (!o) {
    return;
  }
  const offset = Math.max(0, o.body.offset + dir * pageSize);
  if (o.kind === 'instances') {
    askInstances(o.body.class, offset);
  } else {
    askIncoming(o.body.object.id, offset);
  }
}

/** "GC root: sticky class" with the root's thread and frame, where known. */
function rootText(r: { root?: string; rootDetail?: string }): string {
  if (!r.root) {
    return '';
  }
  return r.rootDetail ? `GC root: ${r.root} — ${r.rootDetail}` : `GC root: ${r.root}`;
}

function objectButtons(o: { id: number; class: string }): HTMLElement[] {
  return [
    button('Paths', { class: 'paths', title: `Shortest path from the GC roots to ${o.class} ${objectId(o.id)}` }, () => askPaths({ object: o.id })),
    button('Incoming', { class: 'incoming', title: `The objects that refer to ${o.class} ${objectId(o.id)}` }, () => askIncoming(o.id, 0)),
  ];
}

/** The field or element that holds an object ("elementData", "[3] and 1 more", "static holder"), or ''. */
function fieldText(r: { field?: string; fieldCount?: number }): string {
  if (!r.field) {
    return '';
  }
  return r.fieldCount && r.fieldCount > 1 ? `${r.field} and ${num(r.fieldCount - 1)} more` : r.field;
}

function pathNode(n: PathNode): HTMLElement {
  const line = el(
    'div',
    { class: 'node-line' },
    n.via ? el('span', { class: 'via muted' }, `${n.via} `) : '',
    n.field ? el('span', { class: 'field', title: 'The field or element of the object above that holds this one' }, `${fieldText(n)} → `) : '',
    el('span', { class: 'name' }, n.class),
    ' ',
    el('span', { class: 'muted' }, objectId(n.id)),
    n.root ? el('span', { class: 'root' }, ` (${rootText(n)})`) : '',
    el('span', { class: 'targets muted' }, n.target ? (n.targets === 1 ? ' · target' : ` · target, and ${num(n.targets - 1)} below`) : ` · ${num(n.targets)} ${n.targets === 1 ? 'target' : 'targets'}`),
    ' ',
    ...objectButtons(n),
  );
  const li = el('li', { class: n.target ? 'path-node target' : 'path-node', 'data-id': String(n.id), 'data-class': n.class, 'data-field': n.field ?? '' }, line);
  const kids = el('ul', { class: 'tree' });
  if (n.elided) {
    const what = n.elided.classes.map((c) => `${c.class} ×${num(c.count)}`).join(', ');
    kids.append(el('li', { class: 'elided muted' }, `… ${num(n.elided.count)} objects elided (${what})`));
  }
  for (const c of n.children) {
    kids.append(pathNode(c));
  }
  if (n.more > 0) {
    kids.append(el('li', { class: 'more muted' }, `… and ${num(n.more)} more`));
  }
  if (kids.childElementCount > 0) {
    li.append(kids);
  }
  return li;
}

function renderPaths(): void {
  pathsTree.replaceChildren();
  const p = state.paths;
  if (!p) {
    return;
  }
  const unreached = p.objects - p.reached;
  text(
    pathsTitle,
    `Shortest paths from the GC roots to ${p.target}: ${num(p.reached)} of ${num(p.objects)} ${p.objects === 1 ? 'object' : 'objects'} reached` +
      (unreached > 0 ? ` (${num(unreached)} not reachable: garbage, or kept only by weak or soft references)` : '') +
      '; weak and soft references excluded',
  );
  for (const r of p.roots) {
    pathsTree.append(pathNode(r));
  }
  if (p.more > 0) {
    pathsTree.append(el('li', { class: 'more muted' }, `… and ${num(p.more)} more GC roots`));
  }
}

function renderObjects(): void {
  objectsTable.replaceChildren();
  const o = state.objects;
  pagePrev.disabled = !o || o.body.offset === 0;
  if (!o) {
    pageNext.disabled = true;
    return;
  }
  const rows: ObjectRow[] = o.kind === 'instances' ? o.body.objects : o.body.referrers;
  const first = o.body.offset + 1;
  const last = o.body.offset + rows.length;
  pageNext.disabled = last >= o.body.total;
  const range = rows.length ? `${num(first)}–${num(last)} of ${num(o.body.total)}` : `none of ${num(o.body.total)}`;
  if (o.kind === 'instances') {
    text(objectsTitle, `Instances of ${o.body.class}, largest retained size first: ${range}`);
  } else {
    const b = o.body;
    const self = `${b.object.class} ${objectId(b.object.id)}`;
    text(
      objectsTitle,
      `Objects that refer to ${self}${b.object.root ? ` (itself a ${rootText(b.object)})` : ''}: ${range}` + (b.instances > 0 ? `; ${num(b.instances)} instances hold it as their class` : ''),
    );
  }
  objectsTable.append(el('tr', {}, ...['Object', 'Shallow size', 'Retained size', 'How', ''].map((h, k) => el('th', { class: k === 1 || k === 2 ? 'num' : '' }, h))));
  for (const r of rows) {
    const how = [fieldText(r), r.via, rootText(r)].filter(Boolean).join('; ');
    objectsTable.append(
      el(
        'tr',
        { 'data-id': String(r.id), 'data-class': r.class, 'data-field': r.field ?? '' },
        el('td', { class: 'name' }, `${r.class} `, el('span', { class: 'muted' }, objectId(r.id))),
        el('td', { class: 'num' }, formatBytes(r.size)),
        el('td', { class: 'num', 'data-bytes': String(r.retained) }, r.retained ? formatBytes(r.retained) : '—'),
        el('td', { class: 'muted' }, how),
        el('td', { class: 'actions' }, ...objectButtons(r)),
      ),
    );
  }
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
    el('tr', {}, ...['', 'Object', 'Shallow size', 'Retained size', '% of heap', ''].map((h, k) => el('th', { class: k >= 2 && k <= 4 ? 'num' : '' }, h))),
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
        el('td', { class: 'actions' }, ...objectButtons(o)),
      ),
    );
  }
  if (d.more > 0) {
    domTable.append(el('tr', { class: 'total' }, el('td', {}, ''), el('td', {}, `… and ${num(d.more)} smaller`), el('td', {}, ''), el('td', {}, ''), el('td', {}, ''), el('td', {}, '')));
  }
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
  renderProgress();
  for (const [k, b] of Object.entries(tabs) as [Tab, HTMLButtonElement][]) {
    b.setAttribute('aria-selected', String(k === state.tab));
    b.classList.toggle('selected', k === state.tab);
    panes[k].hidden = k !== state.tab;
  }
  renderHistogram();
  renderPaths();
  renderObjects();
  renderDominators();
  map.redraw();
  renderDiff();
}

/** What the work under way is, in words. */
function progressText(p: HprofProgress): string {
  const of = p.size > 0 ? `${Math.floor((100 * Math.min(p.read, p.size)) / p.size)}% of ${formatBytes(p.size)}` : formatBytes(p.read);
  switch (p.phase) {
    case 'histogram':
      return `Reading the histogram: ${of}`;
    case 'parsing':
      return `Reading the objects and references for the retained sizes: ${of}`;
    default:
      return 'Computing the dominator tree…';
  }
}

function renderProgress(): void {
  const p = state.progress;
  progressRow.hidden = !p && !state.stopped;
  cancelButton.hidden = !p;
  restartButton.hidden = !state.stopped || !!p;
  progressBar.hidden = !p;
  if (p && p.phase !== 'dominators' && p.size > 0) {
    progressBar.value = Math.floor((100 * Math.min(p.read, p.size)) / p.size);
  } else {
    progressBar.removeAttribute('value'); // indeterminate
  }
  progressLabel.textContent = p
    ? progressText(p)
    : !state.stopped
      ? ''
      : state.summary
        ? 'Stopped: the retained sizes were not computed.'
        : 'Stopped: the histogram was not read.';
}

function summaryStatus(s: HprofSummary): string {
  let t = `${s.format}: ${num(s.objects)} objects of ${num(s.totals.classes)} classes, ${formatBytes(s.totals.bytes)}`;
  if (s.oops !== 'auto') {
    t += `, sizes with ${s.oops} references`;
  }
  if (s.partial) {
    t += ' — PARTIAL: the dump is cut short; these figures cover its complete records';
  }
  if (s.warnings.length > 0) {
    t += ` — ${s.warnings.join('; ')}`;
  }
  return t;
}

window.addEventListener('message', (ev: MessageEvent<ToWebview>) => {
  const m = ev.data;
  try {
    switch (m?.type) {
      case 'progress':
        state.progress = decodeProgress(m.body);
        break;
      case 'stopped':
        state.progress = undefined;
        state.stopped = true;
        state.status = m.message;
        break;
      case 'summary':
        state.summary = decodeSummary(m.body);
        state.progress = undefined;
        state.error = undefined;
        state.status = summaryStatus(state.summary);
        post({ type: 'retained' }); // the histogram's retained column, from the dominator tree
        show(state.tab === 'paths' || state.tab === 'objects' ? 'histogram' : state.tab); // fetch what the saved tab needs
        return;
      case 'retained':
        state.retained = new Map(decodeRetained(m.body).classes.map((c) => [c.class, c.retained]));
        state.progress = undefined;
        state.error = undefined;
        break;
      case 'paths':
        state.paths = decodePaths(m.body);
        state.error = undefined;
        state.status = `Paths to ${state.paths.target}: ${num(state.paths.reached)} of ${num(state.paths.objects)} reached from the GC roots`;
        break;
      case 'instances': {
        const b = decodeInstances(m.body);
        state.objects = { kind: 'instances', body: b };
        state.error = undefined;
        state.status = `${num(b.total)} instances of ${b.class}`;
        break;
      }
      case 'incoming': {
        const b = decodeIncoming(m.body);
        state.objects = { kind: 'incoming', body: b };
        state.error = undefined;
        state.status = `${num(b.total)} objects refer to ${b.object.class} ${objectId(b.object.id)}`;
        break;
      }
      case 'dominators':
        state.dom = decodeDominators(m.body);
        state.error = undefined;
        if (!state.dom.object) {
          state.trail = [];
        }
        state.status = `Dominator tree: ${num(state.dom.reachable)} reachable objects retain ${formatBytes(state.dom.total)}`;
        break;
      case 'heapMap': {
        const hm = decodeHeapMap(m.body);
        map.show(hm);
        state.error = undefined;
        state.status = `Heap map: ${hm.pieces.length} piece(s) drawn from object addresses`;
        break;
      }
      case 'diff':
        state.diff = decodeDiff(m.body);
        state.progress = undefined; // the dumps' streamed passes are done
        state.error = undefined;
        state.status = `Diff: ${num(state.diff.classes.length)} classes changed`;
        break;
      case 'status':
        state.status = m.message;
        break;
      case 'error':
        state.error = m.message;
        state.progress = undefined;
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
