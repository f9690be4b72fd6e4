// Small DOM helpers for the webview scripts (no framework, no inline styles
// or handlers, so the strict CSP holds).

export interface VsCodeApi<S> {
  postMessage(message: unknown): void;
  getState(): S | undefined;
  setState(state: S): void;
}

declare function acquireVsCodeApi<S>(): VsCodeApi<S>;

/** The webview API, or a stand-in when the page is opened outside VS Code. */
export function getVsCodeApi<S>(): VsCodeApi<S> {
  if (typeof acquireVsCodeApi === 'function') {
    return acquireVsCodeApi<S>();
  }
  let st: S | undefined;
  return {
    postMessage: () => undefined,
    getState: () => st,
    setState: (s) => {
      st = s;
    },
  };
}

type Child = Node | string;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    e.setAttribute(k, v);
  }
  e.append(...children);
  return e;
}

export function button(label: string, attrs: Record<string, string>, onClick: () => void): HTMLButtonElement {
  const b = el('button', { type: 'button', ...attrs }, label);
  b.addEventListener('click', onClick);
  return b;
}

export function text(e: Element, s: string): void {
  if (e.textContent !== s) {
    e.textContent = s;
  }
}
