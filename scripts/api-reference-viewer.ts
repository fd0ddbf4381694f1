import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { API_REFERENCE_VIEWER_FILE } from '../shared/openapi/api-reference-page';

/**
 * Writes the API reference page's viewer (`GET /api/docs/viewer.js`) beside the bundle: Redoc's
 * standalone bundle, from the pinned `redoc` development dependency, so the deployed app carries
 * it in `dist/app/` without Redoc among its production packages, and nothing is fetched from a CDN.
 * Two edits, each required to match exactly once (a new Redoc version that moved them fails the
 * build here instead of shipping a page that calls out):
 * - the sidebar's "API docs by Redocly" attribution renders an `<img>` from Redocly's CDN; the
 *   attribution keeps its text link, the image is dropped;
 * - webpack's nonce (`__webpack_nonce__`, which the bundle's style-loader and styled-components put
 *   on the `<style>` elements they add) is taken from the viewer's own `<script nonce>`, before the
 *   bundle's modules run: the styles they add on load (the scroll bars') would otherwise be refused
 *   by the page's policy, since Redoc applies its `nonce` option only once it is started;
 * - the `sourceMappingURL` comment goes: the map is not shipped, so nothing should ask for it.
 */

/** The logo element of Redoc 2.5's attribution (its React `createElement` call, minified). */
const CDN_LOGO = 'e?n.createElement("img",{alt:"redocly logo",onError:()=>t(!1),src:"https://cdn.redoc.ly/redoc/logo-mini.svg"}):null';
/** Webpack's runtime setting its nonce (`__webpack_nonce__`) to none. */
const NO_NONCE = 'r.nc=void 0;';
const NONCE_OF_THE_SCRIPT = 'r.nc=document.currentScript&&document.currentScript.nonce||void 0;';
const SOURCE_MAP_COMMENT = /\n\/\/# sourceMappingURL=redoc\.standalone\.js\.map\s*$/;

/** What the build does to Redoc's standalone bundle; exported for its test. */
export function viewerSource(standalone: string): string {
  const once = (text: string, what: string): void => {
    const occurrences = standalone.split(text).length - 1;
    if (occurrences !== 1) throw new Error(`redoc.standalone.js: expected ${what} once, found it ${occurrences} times (a new Redoc version? check it for outside requests and inline styles)`);
  };
  once(CDN_LOGO, "the CDN logo of Redoc's attribution");
  once(NO_NONCE, "webpack's nonce");
  if (!SOURCE_MAP_COMMENT.test(standalone)) throw new Error('redoc.standalone.js: no sourceMappingURL comment at its end (a new Redoc version?)');
  const edited = standalone.replace(CDN_LOGO, 'null').replace(NO_NONCE, NONCE_OF_THE_SCRIPT).replace(SOURCE_MAP_COMMENT, '\n');
  if (/https:\/\/cdn\./.test(edited)) throw new Error('redoc.standalone.js still names a CDN: check what it loads from there');
  return edited;
}

/**
 * Writes `API_REFERENCE_VIEWER_FILE` under `outdir`, with Redoc's licence and the notices of what
 * its bundle holds beside it. @returns the viewer's size in bytes.
 */
export function writeApiReferenceViewer(projectRoot: string, outdir: string): number {
  const redoc = path.dirname(require.resolve('redoc/package.json', { paths: [projectRoot] }));
  const viewer = viewerSource(readFileSync(path.join(redoc, 'bundles', 'redoc.standalone.js'), 'utf8'));
  const file = path.join(outdir, API_REFERENCE_VIEWER_FILE);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, viewer);
  copyFileSync(path.join(redoc, 'bundles', 'redoc.standalone.js.LICENSE.txt'), `${file}.LICENSE.txt`);
  copyFileSync(path.join(redoc, 'LICENSE'), path.join(path.dirname(file), 'LICENSE'));
  return Buffer.byteLength(viewer);
}
