// The HTML shell of the webviews: one external script and style sheet, a
// nonce, and a Content-Security-Policy that allows nothing else (no inline
// script or style, no network). The views build their DOM from the script.
// No vscode: the Chromium tests render the same HTML.

import type { WebviewName } from '../viewList';

export interface WebviewHtmlOptions {
  title: string;
  /** webview.cspSource (or the origin the test server serves from). */
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
  /** Which view the script should build. */
  view: WebviewName;
}

export function makeNonce(random: () => number = Math.random): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let s = '';
  for (let i = 0; i < 32; i++) {
    s += chars[Math.floor(random() * chars.length)];
  }
  return s;
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `img-src ${cspSource} data: blob:`,
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
    "connect-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
}

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function webviewHtml(o: WebviewHtmlOptions): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttr(contentSecurityPolicy(o.cspSource, o.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeAttr(o.styleUri)}">
<title>${escapeAttr(o.title)}</title>
</head>
<body data-view="${o.view}">
<main id="app" aria-live="polite"></main>
<script nonce="${escapeAttr(o.nonce)}" src="${escapeAttr(o.scriptUri)}"></script>
</body>
</html>
`;
}
