// The heap-map panel, one for the DDM Heap view (webview/heapView) and the
// HPROF editor's heap map (webview/hprofView): the bitmap drawn like the DDMS
// heap view in the colours and with the legend the backend sends with the
// map, the zoom (fitted until the user zooms), the scale and the addresses of
// the rows down the side, the address under the pointer, and the totals by
// kind. Decoding and layout are in ../heap/heapmap; the views own only where
// the map comes from.

import { cssColor, fitUnitsPerPixel, formatAddress, formatBytes, HeapMap, heapTotals, hitTest, Layout, layout, LegendEntry, legendColor, paint, RGB, describeHit } from '../heap/heapmap';
import { button, el, text } from './dom';

/** Pixels per row of the map. */
const rowWidth = 256;
/** At most this many screen pixels per pixel of the map. */
const maxScale = 16;
/** Fitting aims at a map at most this many rows high. */
const fitRows = 512;
/** Screen width the ruler and the legend beside the map take. */
const besideMap = 300;

/** The zoom: allocation units per map pixel and screen pixels per map pixel. */
export interface Zoom {
  upp: number;
  scale: number;
}

export interface HeapMapPanelOptions {
  /** The zoom to start with (a view's saved state); absent: fitted to the map. */
  zoom?: Zoom;
  /** Told the zoom after every drawing: undefined while fitted (for the view's saved state). */
  onZoom?: (z: Zoom | undefined) => void;
}

export interface HeapMapPanel {
  /** The zoom controls and the scale, for the view's toolbar. */
  readonly toolbar: HTMLElement[];
  /** The map with its ruler, readout and legend, then the totals by kind. */
  readonly body: HTMLElement[];
  /** The map shown now. */
  readonly map: HeapMap | undefined;
  /** Shows a map (undefined: none, as for another VM); a new map keeps the user's zoom. */
  show(map: HeapMap | undefined): void;
  /** Fits the map again (the zoom the user chose is dropped). */
  fit(): void;
  /** Draws again (the page was resized or shown). */
  redraw(): void;
}

/** The legend the backend sent with the map, in its order and colours. */
function buildLegend(legend: HTMLElement, entries: readonly LegendEntry[] | undefined): void {
  legend.replaceChildren();
  if (!entries) {
    legend.append(el('li', { class: 'note' }, 'The legend comes with the heap map.'));
    return;
  }
  for (const e of entries) {
    const sw = el('span', { class: 'swatch' });
    sw.style.backgroundColor = cssColor(e.rgb);
    legend.append(el('li', { 'data-kind': e.key }, sw, el('span', { class: 'label' }, e.label), el('span', { class: 'detail' }, e.detail)));
  }
  legend.append(el('li', { class: 'note' }, 'Paler: soft, weak, phantom, finalizable, about to be swept.'));
}

function swatch(c: RGB | undefined): HTMLElement {
  const sw = el('span', { class: 'swatch' });
  if (c) {
    sw.style.backgroundColor = cssColor(c);
  }
  return sw;
}

const num = (n: number): string => n.toLocaleString('en-US');

export function heapMapPanel(opts: HeapMapPanelOptions = {}): HeapMapPanel {
  let map: HeapMap | undefined;
  let lay: Layout | undefined;
  let autoFit = opts.zoom === undefined;
  const zoom: Zoom = { upp: opts.zoom?.upp ?? 1, scale: opts.zoom?.scale ?? 1 };

  const canvas = el('canvas', { id: 'heap-canvas', width: String(rowWidth), height: '1' }) as HTMLCanvasElement;
  const canvasBox = el('div', { class: 'canvas-box empty', id: 'canvas-box' }, canvas);
  const ruler = el('div', { id: 'map-ruler', class: 'ruler', 'aria-label': 'Addresses of the rows' });
  const zoomLevel = el('span', { id: 'zoom-level', class: 'zoom' }, '');
  const mapScale = el('span', { id: 'map-scale', class: 'muted' }, '');
  const pointAt = 'Point at the map for an address.';
  const hover = el('div', { id: 'hover', class: 'hover' }, pointAt);
  const legend = el('ul', { id: 'legend', class: 'legend' });
  const totals = el('table', { id: 'totals', class: 'grid' });
  buildLegend(legend, undefined);

  const toolbar = [
    button('−', { id: 'zoom-out', title: 'Zoom out', 'aria-label': 'Zoom out' }, () => step(-1)),
    zoomLevel,
    button('+', { id: 'zoom-in', title: 'Zoom in', 'aria-label': 'Zoom in' }, () => step(1)),
    button('Fit', { id: 'zoom-fit', title: 'Fit the whole heap' }, () => fit()),
    mapScale,
  ];
  const body = [
    el(
      'section',
      { class: 'map-and-legend' },
      el('div', { class: 'map' }, el('div', { class: 'map-with-ruler' }, ruler, canvasBox), hover),
      el('div', { class: 'side' }, el('h3', {}, 'Legend'), legend),
    ),
    el('section', { class: 'totals' }, el('h3', {}, 'By kind'), totals),
  ];

  function fitZoom(m: HeapMap): void {
    zoom.upp = fitUnitsPerPixel(m, rowWidth, fitRows);
    const rows = layout(m, { width: rowWidth, unitsPerPixel: 1 }).rows;
    const fits = zoom.upp > 1 ? 1 : Math.max(1, Math.min(4, Math.floor(fitRows / Math.max(1, rows)), Math.floor((document.body.clientWidth - besideMap) / rowWidth)));
    zoom.scale = 2 ** Math.floor(Math.log2(fits)); // a power of two, so that zooming steps by halves and doubles
  }

  function drawMap(): void {
    ruler.replaceChildren();
    if (!map) {
      canvas.width = rowWidth;
      canvas.height = 1;
      canvasBox.classList.add('empty');
      lay = undefined;
      text(zoomLevel, '');
      text(mapScale, '');
      return;
    }
    canvasBox.classList.remove('empty');
    if (autoFit) {
      fitZoom(map);
    }
    lay = layout(map, { width: rowWidth, unitsPerPixel: zoom.upp });
    canvas.width = lay.width;
    canvas.height = lay.rows;
    canvas.style.width = `${lay.width * zoom.scale}px`;
    canvas.style.height = `${lay.rows * zoom.scale}px`;
    canvas.dataset.upp = String(lay.unitsPerPixel);
    canvas.dataset.scale = String(zoom.scale);
    canvas.getContext('2d')?.putImageData(new ImageData(paint(lay), lay.width, lay.rows), 0, 0);
    // The scale: what a pixel and a row hold, and the address of a row every
    // few dozen screen pixels down the side.
    const unit = map.pieces[0]?.unitSize ?? 8;
    const pixelBytes = lay.unitsPerPixel * unit;
    text(zoomLevel, zoom.scale > 1 ? `×${zoom.scale}` : lay.unitsPerPixel > 1 ? `1/${lay.unitsPerPixel}` : '×1');
    text(mapScale, `1 pixel = ${formatBytes(pixelBytes)}, a row = ${formatBytes(pixelBytes * lay.width)}`);
    mapScale.dataset.pixelBytes = String(pixelBytes);
    ruler.style.height = `${lay.rows * zoom.scale}px`;
    const every = Math.max(1, Math.ceil(48 / zoom.scale));
    for (const pl of lay.pieces) {
      for (let row = 0; row < pl.rows; row += every) {
        const hit = hitTest(lay, 0, pl.firstRow + row);
        if (!hit) {
          continue;
        }
        const tick = el('span', { class: 'tick', 'data-address': String(hit.address) }, formatAddress(hit.address));
        tick.style.top = `${(pl.firstRow + row) * zoom.scale}px`;
        ruler.append(tick);
      }
    }
    opts.onZoom?.(autoFit ? undefined : { ...zoom });
  }

  function drawTotals(): void {
    totals.replaceChildren();
    if (!map) {
      return;
    }
    const t = heapTotals(map);
    totals.append(el('tr', {}, ...['', 'Kind', 'Count', 'Total size', '% of used'].map((h) => el('th', {}, h))));
    const share = (bytes: number): string => (t.usedBytes ? `${((100 * bytes) / t.usedBytes).toFixed(1)}%` : '—');
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
          el('td', { class: 'num' }, num(k.count)),
          el('td', { class: 'num', 'data-bytes': String(k.bytes) }, formatBytes(k.bytes)),
          el('td', { class: 'num' }, share(k.bytes)),
        ),
      );
    }
    totals.append(
      el(
        'tr',
        { 'data-kind': 'free' },
        el('td', {}, swatch(legendColor(map, 'free'))),
        el('td', {}, 'free'),
        el('td', { class: 'num' }, num(t.freeBlocks)),
        el('td', { class: 'num', 'data-bytes': String(t.freeBytes) }, formatBytes(t.freeBytes)),
        el('td', {}, ''),
      ),
      el(
        'tr',
        { class: 'total' },
        el('td', {}, ''),
        el('td', {}, 'total used'),
        el('td', { class: 'num' }, num(t.kinds.reduce((s, k) => s + k.count, 0))),
        el('td', { class: 'num', 'data-bytes': String(t.usedBytes) }, formatBytes(t.usedBytes)),
        el('td', {}, `${formatAddress(t.lowAddress)}–${formatAddress(t.highAddress)}`),
      ),
    );
  }

  /** Zooms in (more screen pixels per map pixel, then fewer units per map pixel) or out. */
  function step(dir: 1 | -1): void {
    autoFit = false;
    if (dir > 0) {
      if (zoom.upp > 1) {
        zoom.upp /= 2;
      } else {
        zoom.scale = Math.min(maxScale, zoom.scale * 2);
      }
    } else if (zoom.scale > 1) {
      zoom.scale = Math.max(1, zoom.scale / 2);
    } else {
      zoom.upp *= 2;
    }
    drawMap();
  }

  function fit(): void {
    autoFit = true;
    drawMap();
  }

  canvas.addEventListener('mousemove', (ev) => {
    if (!lay) {
      return;
    }
    const r = canvas.getBoundingClientRect();
    const x = Math.floor(((ev.clientX - r.left) / r.width) * lay.width);
    const y = Math.floor(((ev.clientY - r.top) / r.height) * lay.rows);
    const hit = hitTest(lay, x, y);
    hover.textContent = hit ? `${formatAddress(hit.address)} — ${describeHit(hit)}` : 'outside the heap (between its pieces, or its expansion area)';
  });
  canvas.addEventListener('mouseleave', () => {
    hover.textContent = pointAt;
  });
  // Fit again when the page is resized (only while fitting automatically).
  let resizeTimer: ReturnType<typeof setTimeout> | undefined;
  new ResizeObserver(() => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      if (autoFit && map) {
        drawMap();
      }
    }, 100);
  }).observe(document.body);

  return {
    toolbar,
    body,
    get map() {
      return map;
    },
    show(m) {
      if (m !== map) {
        map = m;
        buildLegend(legend, m?.legend);
        drawTotals();
      }
      drawMap();
    },
    fit,
    redraw: drawMap,
  };
}
