// The heap map's legend, shared by the DDM heap view and the HPROF editor's
// heap map: the legend the backend sent with the map (ddm.LegendJSON), in its
// order and colours.

import { cssColor, LegendEntry } from '../heap/heapmap';
import { el } from './dom';

export function buildLegend(legend: HTMLElement, entries: readonly LegendEntry[] | undefined): void {
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
