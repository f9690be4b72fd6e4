// Bundles the extension (Node, CommonJS) and the webview scripts (browser,
// IIFE) into out/ with esbuild. --production minifies and drops source maps;
// --watch rebuilds on change.
import * as esbuild from 'esbuild';

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
    entryPoints: { heapView: 'src/webview/heapView.ts', threadsView: 'src/webview/threadsView.ts', hprofView: 'src/webview/hprofView.ts' },
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
