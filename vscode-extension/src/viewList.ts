// The one list of the extension's views. A view is added here, once: the
// names the code passes around (ViewName, WebviewName, DdmViewName), the
// webview scripts the build bundles (scripts/build.mjs reads buildEntries),
// the HTML page of each webview, the DDM data the hub streams while a view
// looks, and the ids VS Code knows them by all derive from this list. The
// package.json contributions are written by hand; test/unit/viewList.test.ts
// fails when they and this list disagree.
//
// A webview named N is drawn by src/webview/NView.ts (bundled to
// out/webview/NView.js). No vscode, no DOM: the build, the extension, the
// webview scripts and the tests all import it.

import type { DdmKind } from './ddmProtocol';

export interface ViewSpec {
  /** The id VS Code knows it by: the package.json view id, the webview panel's or custom editor's viewType. */
  readonly id: string;
  /**
   * How VS Code hosts it: a tree view or a webview view (both contributed in
   * package.json "views"), an editor panel the extension opens, or a custom
   * editor (package.json "customEditors").
   */
  readonly host: 'tree' | 'webviewView' | 'panel' | 'customEditor';
  /** Webviews: the page's title. Its script is src/webview/<name>View.ts. */
  readonly title?: string;
  /** The DDM data it shows: the backend streams these while the view is visible (DdmHub.watch). */
  readonly ddm?: readonly DdmKind[];
}

export const views = {
  vms: { id: 'ddmbridge.vms', host: 'tree' },
  threads: { id: 'ddmbridge.threads', host: 'webviewView', title: 'Threads', ddm: ['threads'] },
  heap: { id: 'ddmbridge.heap', host: 'panel', title: 'Heap map', ddm: ['heapInfo', 'heapMap'] },
  hprof: { id: 'ddmbridge.hprof', host: 'customEditor', title: 'Heap dump' },
  memory: { id: 'ddmbridge.memory', host: 'tree' },
  virtualThreads: { id: 'ddmbridge.virtualThreads', host: 'tree' },
  coroutines: { id: 'ddmbridge.coroutines', host: 'tree' },
} as const satisfies Record<string, ViewSpec>;

export type ViewName = keyof typeof views;
type Views = typeof views;
/** The views drawn by a webview script (those with a title). */
export type WebviewName = { [K in ViewName]: Views[K] extends { title: string } ? K : never }[ViewName];
/** The views that show DDM data the backend streams. */
export type DdmViewName = { [K in ViewName]: Views[K] extends { ddm: readonly DdmKind[] } ? K : never }[ViewName];

export const viewNames = Object.keys(views) as ViewName[];

/** Whether a view is drawn by a webview script. */
export function isWebview(name: ViewName): name is WebviewName {
  return 'title' in views[name];
}

export const webviewNames: WebviewName[] = viewNames.filter(isWebview);

/** The bundled script of a webview, relative to out/webview. */
export function webviewScript(name: WebviewName): string {
  return `${name}View.js`;
}

/** The build's webview entry points: output name → source (esbuild entryPoints). */
export function buildEntries(): Record<string, string> {
  return Object.fromEntries(webviewNames.map((n) => [`${n}View`, `src/webview/${n}View.ts`]));
}
