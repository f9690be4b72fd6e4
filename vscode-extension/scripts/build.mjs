// Bundles the extension (Node, CommonJS) and the webview scripts (browser,
// IIFE) into out/ with esbuild. --production minifies and drops source maps;
// --watch rebuilds on change. The webview entry points come from the one list
// of views (src/viewList.ts), compiled here on the fly.
import * as esbuild from 'esbuild';

/** src/viewList.ts as a module (esbuild compiles it; it imports only types). */
async function viewList() {
  const r = await esbuild.build({ entryPoints: ['src/viewList.ts'], bundle: true, write: false, format: 'esm', platform: 'neutral', logLevel: 'warning' });
  return import(`data:text/javascript;base64,${Buffer.from(r.outputFiles[0].text).toString('base64')}`);
}
const { buildEntries } = await viewList();

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const common = {
  bundle: true,
  minify: production,
  sourcemap: production ? false : 'linked',
  logLevel: 'warning',
  target: 'es2022',
};

const builds = [
  {
    ...common,
    entryPoints: ['src/extension.ts'],
    outfile: 'out/extension.js',
    platform: 'node',
    format: 'cjs',
    external: ['vscode'],
  },
  {
    ...common,
    entryPoints: buildEntries(),
    outdir: 'out/webview',
    platform: 'browser',
    format: 'iife',
  },
];

if (watch) {
  for (const b of builds) {
    const ctx = await esbuild.context(b);
    await ctx.watch();
  }
  console.log('watching…');
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
