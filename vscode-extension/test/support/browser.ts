// Debian's Chromium, headless, driven by playwright-core (which never
// downloads a browser), and a static server for the webview pages.

import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Browser, chromium } from 'playwright-core';
import { tmpDir } from './fixtures';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(chromiumPath)) {
    throw new Error(`${chromiumPath} not found: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  }
  const home = path.join(tmpDir(), 'chromium-home');
  fs.mkdirSync(home, { recursive: true });
  return chromium.launch({
    executablePath: chromiumPath,
    args: chromiumArgs,
    env: {
      ...process.env,
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, 'config'),
      XDG_CACHE_HOME: path.join(home, 'cache'),
      XDG_DATA_HOME: path.join(home, 'data'),
    },
  });
}

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
};

export interface StaticServer {
  origin: string;
  /** Serves this HTML at the given path. */
  page(urlPath: string, html: string): void;
  close(): Promise<void>;
}

/** Serves files under root, plus pages registered with page(). Loopback only. */
export async function serveStatic(root: string): Promise<StaticServer> {
  const pages = new Map<string, string>();
  const srv = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/favicon.ico') {
      res.writeHead(204);
      res.end();
      return;
    }
    const html = pages.get(url.pathname);
    if (html !== undefined) {
      res.writeHead(200, { 'content-type': types['.html'] });
      res.end(html);
      return;
    }
    const file = path.join(root, path.normalize(decodeURIComponent(url.pathname)));
    if (!file.startsWith(root + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404);
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  return {
    origin,
    page: (p, html) => pages.set(p, html),
    close: () =>
      new Promise<void>((r) => {
        srv.closeAllConnections();
        srv.close(() => r());
      }),
  };
}

/**
 * An init script standing in for VS Code's webview host: acquireVsCodeApi
 * records posted messages in window.__posted, and CSP violations are counted
 * in window.__cspViolations.
 */
export const vscodeStub = `
  window.__posted = [];
  window.__cspViolations = [];
  window.__state = undefined;
  document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));
  window.acquireVsCodeApi = () => ({
    postMessage: (m) => window.__posted.push(m),
    getState: () => window.__state,
    setState: (s) => { window.__state = s; },
  });
`;
