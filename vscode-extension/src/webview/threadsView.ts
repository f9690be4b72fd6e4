// The live threads webview: one row per thread with its state colour, CPU
// times and a strip of "blinkenlights" showing recent activity. Bundled for
// the browser; the model is ../threads.

import { decodeThreadDump, dumpGroupRow, ThreadDump } from '../threads/threadDump';
import { decodeThreads, formatCpu, stateColors, stateSummary, ThreadRow, ThreadTracker } from '../threads/threads';
import type { FromWebview, ToWebview, VMRef } from './messages';
import { button, el, getVsCodeApi } from './dom';

const vscode = getVsCodeApi<Record<string, never>>();
const tracker = new ThreadTracker();

let vm: VMRef | null = null;
let rows: ThreadRow[] = [];
let message: { text: string; error: boolean } | undefined;
let dump: ThreadDump | undefined;

function post(m: FromWebview): void {
  vscode.postMessage(m);
}

const app = document.getElementById('app')!;
const header = el('div', { class: 'toolbar' });
const title = el('span', { id: 'vm-title', class: 'title' }, 'Threads');
const summary = el('span', { id: 'summary', class: 'summary' });
header.append(
  title,
  summary,
  el('span', { class: 'spacer' }),
  button('Pick VM…', { id: 'pick', title: 'Choose the VM whose threads are shown' }, () => post({ type: 'pickVM' })),
  button('Refresh', { id: 'refresh' }, () => post({ type: 'refresh' })),
  button('Virtual Threads', { id: 'thread-dump', title: 'A JDK 21+ VM on this host: its virtual threads grouped by stack, from a JSON thread dump (no debugger needed)' }, () =>
    post({ type: 'threadDump' }),
  ),
);
const status = el('div', { id: 'status', class: 'status' });
const table = el('table', { id: 'threads', class: 'grid threads' });
const vthreads = el('div', { id: 'vthreads', class: 'vthreads' });
app.append(header, status, table, vthreads);

function renderDump(): void {
  if (!dump) {
    vthreads.replaceChildren();
    return;
  }
  const head = el(
    'div',
    { class: 'title' },
    `${dump.virtual} virtual threads in ${dump.groups.length} stack${dump.groups.length === 1 ? '' : 's'}` +
      (dump.ungrouped ? ` (${dump.ungrouped} in further stacks)` : '') +
      ` · thread dump of ${dump.runtimeVersion || 'the VM'} at ${dump.time}`,
  );
  const groups = dump.groups.map((g, i) => {
    const r = dumpGroupRow(g);
    return el(
      'details',
      { class: 'vgroup', 'data-group': String(i) },
      el('summary', {}, el('b', {}, r.count), ` ${r.where}`, r.states ? el('span', { class: 'flag' }, ` · ${r.states}`) : '', r.blocker ? el('span', { class: 'flag' }, ` · ${r.blocker}`) : ''),
      el('pre', { class: 'stack' }, g.stack.join('\n')),
      el('div', { class: 'flag' }, `tids: ${g.tids.join(', ')}${g.count > g.tids.length ? ', …' : ''}`),
    );
  });
  vthreads.replaceChildren(head, ...groups);
}

function lights(levels: number[]): HTMLElement {
  const box = el('span', { class: 'lights', 'aria-label': 'recent activity' });
  for (const l of levels) {
    const lamp = el('span', { class: l > 0 ? 'lamp on' : 'lamp' });
    if (l > 0) {
      lamp.style.opacity = String(0.35 + 0.65 * l);
    }
    box.append(lamp);
  }
  return box;
}

function render(): void {
  title.textContent = vm ? `Threads of ${vm.name}` : 'Threads';
  status.textContent = message?.text ?? (vm ? (rows.length ? '' : 'Waiting for thread data…') : 'No VM selected.');
  status.className = message?.error ? 'status error' : 'status';
  const counts = stateSummary(rows);
  summary.replaceChildren(
    ...Object.entries(counts).map(([cls, n]) => {
      const b = el('span', { class: 'badge', 'data-state': cls }, `${n} ${cls}`);
      b.style.borderColor = stateColors[cls as keyof typeof stateColors];
      return b;
    }),
  );
  table.replaceChildren(
    el('tr', {}, ...['ID', 'TID', 'Name', 'State', 'utime', 'stime', 'Activity'].map((h) => el('th', {}, h))),
  );
  for (const r of rows) {
    const stateCell = el('span', { class: 'state', 'data-state': r.stateClass }, r.suspended && r.state !== 'suspended' ? `${r.state} (suspended)` : r.state);
    stateCell.style.backgroundColor = r.color;
    const flags = [r.daemon ? 'daemon' : ''].filter(Boolean).join(' ');
    table.append(
      el(
        'tr',
        { 'data-thread': String(r.id), class: r.isNew ? 'new' : '' },
        el('td', { class: 'num' }, String(r.id)),
        el('td', { class: 'num' }, r.tid !== undefined ? String(r.tid) : '—'),
        el('td', { class: 'name', title: flags }, r.name || `Thread ${r.id}`, flags ? el('span', { class: 'flag' }, ` ${flags}`) : ''),
        el('td', {}, stateCell),
        el('td', { class: 'num' }, formatCpu(r.utime)),
        el('td', { class: 'num' }, formatCpu(r.stime)),
        el('td', {}, lights(r.lights)),
      ),
    );
  }
}

window.addEventListener('message', (ev: MessageEvent<ToWebview>) => {
  const m = ev.data;
  switch (m?.type) {
    case 'vm':
      if (m.vm?.id !== vm?.id) {
        tracker.reset();
        rows = [];
        dump = undefined;
        renderDump();
      }
      vm = m.vm;
      message = undefined;
      break;
    case 'threads':
      try {
        const list = decodeThreads(m.body);
        rows = tracker.update(list.threads).sort((a, b) => a.id - b.id);
        message = list.note ? { text: list.note, error: false } : undefined;
      } catch (e) {
        message = { text: `Cannot read the threads: ${(e as Error).message}`, error: true };
      }
      break;
    case 'status':
      message = { text: m.message, error: false };
      break;
    case 'threadDump':
      try {
        dump = decodeThreadDump(m.body);
        message = undefined;
      } catch (e) {
        message = { text: `Cannot read the thread dump: ${(e as Error).message}`, error: true };
      }
      renderDump();
      // Asked for with the button: shown, not left below a table of
      // thousands of threads (an agent with includevirtualthreads=y lists
      // every virtual thread there).
      if (dump) {
        vthreads.scrollIntoView({ block: 'start' });
      }
      break;
    case 'error':
      message = { text: m.message, error: true };
      break;
    default:
      return;
  }
  render();
});

render();
post({ type: 'ready' });
