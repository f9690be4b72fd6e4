import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { buildEntries, isWebview, viewNames, views, webviewNames, webviewScript } from '../../src/viewList';
import { extRoot } from '../support/fixtures';

interface Contributes {
  views: Record<string, { id: string; type?: string }[]>;
  customEditors: { viewType: string }[];
}
const contributes = (JSON.parse(fs.readFileSync(path.join(extRoot, 'package.json'), 'utf8')) as { contributes: Contributes }).contributes;

describe('the view list', () => {
  test('package.json contributes exactly the listed tree views, webview views and custom editors', () => {
    const contributed = Object.values(contributes.views).flat();
    for (const name of viewNames) {
      const v = views[name];
      const c = contributed.find((x) => x.id === v.id);
      if (v.host === 'tree' || v.host === 'webviewView') {
        assert.ok(c, `${name}: package.json contributes.views has ${v.id}`);
        assert.equal(c.type, v.host === 'webviewView' ? 'webview' : undefined, `${name}: contributed as a ${v.host}`);
      } else {
        assert.equal(c, undefined, `${name} (${v.host}) is no contributed view`);
      }
      const editor = contributes.customEditors.some((e) => e.viewType === v.id);
      assert.equal(editor, v.host === 'customEditor', `${name}: in contributes.customEditors iff a custom editor`);
    }
    const listed = new Set<string>(viewNames.map((n) => views[n].id));
    for (const id of [...contributed.map((c) => c.id), ...contributes.customEditors.map((e) => e.viewType)]) {
      assert.ok(listed.has(id), `package.json contributes ${id}: add it to src/viewList.ts`);
    }
  });

  test('each webview is built from its script, and only webviews are', () => {
    const entries = buildEntries();
    assert.deepEqual(Object.keys(entries).sort(), webviewNames.map((n) => webviewScript(n).replace(/\.js$/, '')).sort());
    assert.equal(entries.heapView, 'src/webview/heapView.ts');
    for (const [out, src] of Object.entries(entries)) {
      assert.ok(fs.existsSync(path.join(extRoot, src)), `${src} exists`);
      assert.ok(fs.existsSync(path.join(extRoot, 'out', 'webview', `${out}.js`)), `the build wrote out/webview/${out}.js`);
    }
    assert.ok(isWebview('heap') && isWebview('hprof') && !isWebview('memory') && !isWebview('vms'));
    for (const n of viewNames) {
      if ('ddm' in views[n]) {
        assert.ok(isWebview(n), `${n} shows DDM data, which the hub sends to webviews`);
      }
    }
  });
});
