import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { viewerSource } from '../../scripts/api-reference-viewer';
import { API_REFERENCE_VIEWER_FILE } from '../../shared/openapi/api-reference-page';
import { PROJECT_ROOT } from '../helpers/local-host';

/**
 * The build's edits to Redoc's standalone bundle (`scripts/api-reference-viewer.ts`), on the pinned
 * package itself. Booleans and counts only: a failure must not print a megabyte of script.
 */
const STANDALONE = readFileSync(path.join(PROJECT_ROOT, 'node_modules', 'redoc', 'bundles', 'redoc.standalone.js'), 'utf8');
const count = (text: string, part: string | RegExp) => (typeof part === 'string' ? text.split(part).length - 1 : (text.match(new RegExp(part, 'g')) ?? []).length);

describe("the API reference viewer, Redoc's standalone bundle as the build writes it", () => {
  it('names no CDN: the attribution keeps its link and loses the logo Redoc loads from its CDN', () => {
    expect(count(STANDALONE, 'https://cdn.redoc.ly/redoc/logo-mini.svg')).toBe(1);
    const viewer = viewerSource(STANDALONE);
    expect(count(viewer, /https:\/\/cdn\./)).toBe(0);
    expect(count(viewer, '"API docs by Redocly"')).toBe(1);
  });

  it("takes webpack's nonce from its own script tag, before its modules add their styles", () => {
    const viewer = viewerSource(STANDALONE);
    expect(count(viewer, 'r.nc=void 0;')).toBe(0);
    expect(count(viewer, 'r.nc=document.currentScript&&document.currentScript.nonce||void 0;')).toBe(1);
  });

  it('drops the bundle\'s own source-map comment (the map is not shipped) and changes nothing else', () => {
    const viewer = viewerSource(STANDALONE);
    expect(count(viewer, 'sourceMappingURL=redoc.standalone.js.map')).toBe(0);
    expect(viewer.length - STANDALONE.length).toBe(
      'null'.length - 'e?n.createElement("img",{alt:"redocly logo",onError:()=>t(!1),src:"https://cdn.redoc.ly/redoc/logo-mini.svg"}):null'.length +
        ('r.nc=document.currentScript&&document.currentScript.nonce||void 0;'.length - 'r.nc=void 0;'.length) -
        '//# sourceMappingURL=redoc.standalone.js.map'.length,
    );
  });

  it('refuses a bundle it does not recognise (another Redoc version), naming what it missed', () => {
    expect(() => viewerSource(STANDALONE.replace('logo-mini.svg', 'logo.svg'))).toThrow(/CDN logo of Redoc's attribution once, found it 0 times/);
    expect(() => viewerSource(STANDALONE.replace('r.nc=void 0;', ''))).toThrow(/webpack's nonce once, found it 0 times/);
    expect(() => viewerSource(STANDALONE.replace('!function(e,t){', 'fetch("https://cdn.example.net/x.js");!function(e,t){'))).toThrow(/still names a CDN/);
    expect(() => viewerSource(STANDALONE.replace('//# sourceMappingURL=redoc.standalone.js.map', ''))).toThrow(/no sourceMappingURL comment/);
  });

  it('is what `npm run build` wrote beside the bundle, which the deployed app serves from dist/app/', () => {
    const built = readFileSync(path.join(PROJECT_ROOT, 'dist', 'app', API_REFERENCE_VIEWER_FILE), 'utf8');
    expect(built === viewerSource(STANDALONE)).toBe(true);
  });
});
