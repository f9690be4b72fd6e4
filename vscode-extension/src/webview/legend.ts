// The heap map's legend, shared by the DDM heap view and the HPROF editor's
// heap map: the DDMS colours of ../heap/heapmap.

import { cssColor, freeColor, gapColor, kindColors, kindDetails, kindNames } from '../heap/heapmap';
import { el } from './dom';

export function buildLegend(legend: HTMLElement): void {
  legend.replaceChildren();
  const swatch = (rgb: readonly [number, number, number], label: string, detail: string, kind: string): HTMLElement => {
    const sw = el('span', { class: 'swatch' });
    sw.style.backgroundColor = cssColor(rgb);
    return el('li', { 'data-kind': kind }, sw, el('span', { class: 'label' }, label), el('span', { class: 'detail' }, detail));
  };
  legend.append(swatch(freeColor, 'free', 'free space', 'free'));
  kindNames.forEach((name, k) => legend.append(swatch(kindColors[k], name, kindDetails[k], String(k))));
  legend.append(swatch(gapColor, 'heap expansion area', 'between and after pieces', 'gap'));
  legend.append(el('li', { class: 'note' }, 'Paler: soft, weak, phantom, finalizable, about to be swept.'));
}
