import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * The API reference page (`GET /api/docs`): the OpenAPI document the app serves
 * (`GET /api/openapi.json`) shown by Redoc, whose standalone bundle the app serves itself
 * (`GET /api/docs/viewer.js`), so opening the page asks nothing of any other origin. The
 * Content-Security-Policy says so to the browser: scripts from the app only, the document fetched
 * from the app only, no fonts, frames or forms; the viewer's styles (styled-components injects
 * `<style>` elements as it renders) carry the page's nonce, which Redoc passes on to them.
 */

/** The viewer as the build writes it (`scripts/api-reference-viewer.ts`), below the bundle's directory. */
export const API_REFERENCE_VIEWER_FILE = 'api-reference/redoc.standalone.js';

/** Where the page, its viewer and the document it shows are served. */
export const API_REFERENCE_PATHS = { page: '/api/docs', viewer: '/api/docs/viewer.js', document: '/api/openapi.json' } as const;

const PAGE_ELEMENT_ID = 'api-reference';

/**
 * The page's policy. `worker-src blob:`: Redoc's search runs in a worker it starts from a blob of
 * its own bundle (without it, the search finds nothing). `img-src data:`: the page's empty icon
 * (no request for `/favicon.ico`) and Redoc's images are data: URLs.
 * @param nonce the page's nonce (base64), new for every answer.
 */
export function apiReferencePolicy(nonce: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'nonce-${nonce}'`,
    'img-src data:',
    "connect-src 'self'",
    'worker-src blob:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The page's answer headers besides the app's usual ones (`Cache-Control: no-store`, `nosniff`). */
export function apiReferencePageHeaders(nonce: string): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': apiReferencePolicy(nonce),
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
  };
}

/** The page: an element for the viewer and the viewer's script, which reads the document's path and the nonce from its own tag. */
export function apiReferencePageHtml(nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference</title>
<link rel="icon" href="data:,">
<style nonce="${nonce}">body { margin: 0; padding: 0; }</style>
</head>
<body>
<div id="${PAGE_ELEMENT_ID}"></div>
<script src="${API_REFERENCE_PATHS.viewer}" nonce="${nonce}" data-document="${API_REFERENCE_PATHS.document}"></script>
</body>
</html>
`;
}

/**
 * Starts Redoc once its bundle has run (appended to it: an inline script would need its own hash).
 * System fonts: Redoc's default typefaces are web fonts its templates load from elsewhere.
 */
const START_VIEWER = `
;(function () {
  var script = document.currentScript;
  var system = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  Redoc.init(script.getAttribute('data-document'), {
    nonce: script.nonce,
    theme: { typography: { fontFamily: system, headings: { fontFamily: system }, code: { fontFamily: 'ui-monospace, "DejaVu Sans Mono", monospace' } } }
  }, document.getElementById(${JSON.stringify(PAGE_ELEMENT_ID)}));
})();
`;

/**
 * The viewer file: beside the bundle (`dist/app/`), or, from tsc's output or the TypeScript
 * sources (tests), the build's `dist/app/`.
 */
function viewerFile(): string {
  const candidates = [
    path.join(__dirname, API_REFERENCE_VIEWER_FILE),
    path.resolve(__dirname, '..', '..', 'app', API_REFERENCE_VIEWER_FILE),
    path.resolve(__dirname, '..', '..', 'dist', 'app', API_REFERENCE_VIEWER_FILE),
  ];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) throw new Error(`the API reference viewer (${API_REFERENCE_VIEWER_FILE}) is missing beside the bundle: \`npm run build\` writes it`);
  return found;
}

let viewer: Promise<string> | undefined;

/**
 * The viewer's script, read at the first request for it and then kept: a cold start never reads
 * its megabyte. A failed read is not kept, so the next request tries again.
 */
export function apiReferenceViewerScript(): Promise<string> {
  viewer ??= (async () => `${await readFile(viewerFile(), 'utf8')}${START_VIEWER}`)().catch((error: unknown) => {
    viewer = undefined;
    throw error;
  });
  return viewer;
}
