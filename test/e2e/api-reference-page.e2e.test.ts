import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAzuriteQueue, type RunningAzurite } from '../../devhost/azurite';
import { API_REFERENCE_PATHS } from '../../shared/openapi/api-reference-page';
import { rawExchange } from '../helpers/raw-http';
import { PROJECT_ROOT, startLocalHost, type LocalHost } from '../helpers/local-host';

/**
 * The API reference page (`GET /api/docs`) in a real browser: Debian's Chromium, headless, driven
 * by playwright-core, opening the page the local host serves. Every operation of the checked-in
 * document must appear on it, every request the page makes must go to the app's own origin, and
 * the browser must report no Content-Security-Policy violation. Production answers 404 unless
 * `API_DOCS_IN_PRODUCTION=true`. A screenshot is kept in `.tools/artifacts/` (CI keeps it).
 *
 * Without Chromium the suite fails, with one line saying how to install it: a skipped browser
 * test would let a page that calls out pass unnoticed, on a developer's machine as in CI.
 */

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOT = path.join(PROJECT_ROOT, '.tools', 'artifacts', 'api-docs.png');
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface DocumentedOperation {
  method: string;
  path: string;
  operationId: string;
  summary: string;
}

const openApiDocument = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'docs', 'openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, { operationId?: string; summary?: string }>>;
};
const OPERATIONS: DocumentedOperation[] = Object.entries(openApiDocument.paths).flatMap(([pathTemplate, item]) =>
  Object.entries(item)
    .filter(([method]) => METHODS.includes(method))
    .map(([method, operation]) => ({ method, path: pathTemplate, operationId: operation.operationId ?? '', summary: operation.summary ?? '' })),
);

/** Production settings; every address a placeholder on this machine, so that nothing could leave it. */
function productionSettings(azurite: RunningAzurite, workDir: string): Record<string, string> {
  return {
    APP_ENV: 'production',
    IDP_ISSUER: 'https://127.0.0.1:9/',
    IDP_AUDIENCE: 'api://api-reference-test',
    IDP_JWKS_URI: 'https://127.0.0.1:9/keys',
    SQL_CONNECTION_STRING: 'Server=tcp:127.0.0.1,9;Database=app;User Id=app;Password=placeholder-not-a-secret;Encrypt=true',
    CHILD_SECRET_PEPPER: 'placeholder-pepper-0123456789abcdef0123456789',
    AzureWebJobsStorage: azurite.connectionString,
    ACS_ENDPOINT: 'https://127.0.0.1:9',
    ACS_SMS_FROM: '+15555550100',
    ACS_EMAIL_SENDER: 'noreply@example.com',
    CONSENT_TERMS_VERSION: '2025-06',
    SQLITE_PATH: path.join(workDir, 'unused.sqlite'),
  };
}

/**
 * What the functions run in the page use of the browser's globals (the tests compile without the
 * DOM library; the casts vanish when the functions are sent to the page).
 */
interface InThePage {
  document: {
    querySelectorAll(selector: string): ArrayLike<{ getAttribute(name: string): string | null }>;
    body: { innerText: string };
    addEventListener(type: 'securitypolicyviolation', listener: (event: { effectiveDirective: string; blockedURI: string; sourceFile: string; lineNumber: number }) => void): void;
  };
  reportViolation(line: string): Promise<void>;
}

interface PageVisit {
  status: number | undefined;
  headers: Record<string, string>;
  /** Every request the page made, in order. */
  requests: string[];
  /** `securitypolicyviolation` events and console lines about the policy. */
  violations: string[];
  pageErrors: string[];
}

/** Opens the page and waits until the viewer has rendered every operation of the document. */
async function visit(page: Page, baseUrl: string): Promise<PageVisit> {
  const result: PageVisit = { status: undefined, headers: {}, requests: [], violations: [], pageErrors: [] };
  page.on('request', (request) => result.requests.push(request.url()));
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) result.violations.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => result.pageErrors.push(error.message));
  await page.exposeFunction('reportViolation', (line: string) => result.violations.push(line));
  await page.addInitScript(() => {
    const inPage = globalThis as unknown as InThePage;
    inPage.document.addEventListener('securitypolicyviolation', (event) => {
      void inPage.reportViolation(`${event.effectiveDirective} refused ${event.blockedURI || 'inline'} (${event.sourceFile}:${event.lineNumber})`);
    });
  });
  const response = await page.goto(`${baseUrl}${API_REFERENCE_PATHS.page}`);
  result.status = response?.status();
  result.headers = (await response?.allHeaders()) ?? {};
  // Redoc renders one section per operation, `operation/<operationId>`.
  await page.waitForFunction(
    (count) => (globalThis as unknown as InThePage).document.querySelectorAll('[data-section-id^="operation/"]').length >= count,
    OPERATIONS.length,
    { timeout: 20_000 },
  );
  // Anything started by the render (its search worker, late styles) has had its turn.
  await page.waitForLoadState('networkidle');
  return result;
}

let browser: Browser | undefined;
let workDir: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: the API reference page is tested in Debian's Chromium; install it with \`apt-get install -y chromium\``);
  workDir = mkdtempSync(path.join(tmpdir(), 'api-reference-e2e-'));
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
});

afterAll(async () => {
  await browser?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe('the API reference page outside production', () => {
  let host: LocalHost;
  let page: Page;
  let seen: PageVisit;

  beforeAll(async () => {
    host = await startLocalHost({ APP_ENV: 'test', SQLITE_PATH: path.join(workDir, 'test.sqlite') });
    page = await (browser as Browser).newPage({ viewport: { width: 1280, height: 900 } });
    seen = await visit(page, host.baseUrl);
  }, 60_000);

  afterAll(async () => {
    await page?.close();
    await host?.stop();
  });

  it('renders every operation of docs/openapi.json: its section, its summary, its method and path', async () => {
    expect(OPERATIONS.length).toBeGreaterThan(30);
    const rendered = await page.evaluate(() => {
      const { document } = globalThis as unknown as InThePage;
      return {
        sections: Array.from(document.querySelectorAll('[data-section-id^="operation/"]'), (element) => element.getAttribute('data-section-id')),
        text: document.body.innerText,
      };
    });
    const missing = OPERATIONS.filter(
      (operation) =>
        !rendered.sections.includes(`operation/${operation.operationId}`) ||
        !rendered.text.includes(operation.summary) ||
        !rendered.text.includes(`${operation.method.toUpperCase()}\n${operation.path}`),
    );
    expect(missing.map((operation) => `${operation.method.toUpperCase()} ${operation.path} (${operation.operationId})`)).toEqual([]);
    expect(seen.pageErrors).toEqual([]);
  });

  it("makes no request anywhere but the app's origin: the page, its viewer, the document (and the viewer's search worker, a blob of the page)", () => {
    const origin = new URL(host.baseUrl).origin;
    const elsewhere = seen.requests.filter((url) => new URL(url).origin !== origin && !url.startsWith(`blob:${origin}/`));
    expect(elsewhere).toEqual([]);
    expect(seen.requests.map((url) => (url.startsWith('blob:') ? 'blob:' : new URL(url).pathname))).toEqual([
      API_REFERENCE_PATHS.page,
      API_REFERENCE_PATHS.viewer,
      API_REFERENCE_PATHS.document,
      'blob:',
    ]);
  });

  it('answers with a policy that allows only what the page needs, and the browser reports no violation', () => {
    expect(seen.status).toBe(200);
    expect(seen.headers['content-type']).toBe('text/html; charset=utf-8');
    const policy = seen.headers['content-security-policy'] ?? '';
    const nonce = /style-src 'nonce-([A-Za-z0-9+/]{24})'/.exec(policy)?.[1];
    expect(nonce, policy).toBeDefined();
    expect(policy).toBe(
      `default-src 'none'; script-src 'self'; style-src 'nonce-${nonce}'; img-src data:; connect-src 'self'; worker-src blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    expect(policy).not.toMatch(/\*|unsafe-|https?:/);
    expect(seen.headers).toMatchObject({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY' });
    expect(seen.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen.violations).toEqual([]);
  });

  it('gives every answer a new nonce, and serves the viewer, Redoc with no CDN address in it, as JavaScript', async () => {
    const port = Number(new URL(host.baseUrl).port);
    const get = (pathname: string) => rawExchange({ port }, `GET ${pathname} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`, { waitMs: 10_000 });
    const [first, second, viewer] = await Promise.all([get(API_REFERENCE_PATHS.page), get(API_REFERENCE_PATHS.page), get(API_REFERENCE_PATHS.viewer)]);
    const nonceOf = (policy = '') => /'nonce-([^']+)'/.exec(policy)?.[1];
    expect(nonceOf(first.headers['content-security-policy'])).not.toBe(nonceOf(second.headers['content-security-policy']));
    expect(first.body).toContain(`<script src="${API_REFERENCE_PATHS.viewer}" nonce="${nonceOf(first.headers['content-security-policy']) ?? 'none'}"`);
    expect(viewer.status).toBe(200);
    expect(viewer.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(viewer.headers['x-content-type-options']).toBe('nosniff');
    // Booleans: a failure must not print a megabyte of script.
    expect(viewer.body.includes('Redoc.init(')).toBe(true);
    expect(/https:\/\/cdn\.|sourceMappingURL=redoc/.test(viewer.body)).toBe(false);
  });

  it("searches: the viewer's search index runs in a worker the policy lets it start from a blob", async () => {
    await page.locator('input.search-input').pressSequentially('consent', { delay: 20 });
    const results = page.locator('[data-role="search:results"] [role="menuitem"]');
    await results.first().waitFor({ timeout: 10_000 });
    const found = await results.evaluateAll((items) => items.map((item) => item.getAttribute('aria-label')));
    expect(found).toContain("The parent's consents for a child, newest first");
    await page.locator('input.search-input').fill('');
    expect(seen.violations).toEqual([]);
  });

  it('keeps a screenshot of the rendered page (.tools/artifacts/api-docs.png)', async () => {
    mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    rmSync(SCREENSHOT, { force: true });
    await page.screenshot({ path: SCREENSHOT });
    expect(readFileSync(SCREENSHOT).subarray(1, 4).toString('latin1')).toBe('PNG');
  });
});

describe('the API reference page in production', () => {
  let azurite: RunningAzurite;

  beforeAll(async () => {
    azurite = await startAzuriteQueue({ port: 0, logFile: path.join(workDir, 'azurite.log') });
  });

  afterAll(async () => {
    await azurite?.stop();
  });

  it('answers 404 without API_DOCS_IN_PRODUCTION, the same problem as an unknown path, for the page and its viewer, to every method', async () => {
    const host = await startLocalHost(productionSettings(azurite, workDir));
    try {
      const port = Number(new URL(host.baseUrl).port);
      const ask = (method: string, pathname: string) =>
        rawExchange({ port }, `${method} ${pathname} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      const shape = (answer: { status: number; headers: Record<string, string>; body: string }) => {
        const { traceId, ...body } = JSON.parse(answer.body) as Record<string, unknown>;
        expect(traceId).toMatch(/^[0-9a-f]{32}$/);
        return { status: answer.status, contentType: answer.headers['content-type'], policy: answer.headers['content-security-policy'], allow: answer.headers['allow'], body };
      };
      // A wrong method on a switched-off page must not answer 405 with `Allow`: that would tell it is there.
      for (const method of ['GET', 'POST', 'DELETE', 'OPTIONS']) {
        const [pageAnswer, viewerAnswer, unknownAnswer] = await Promise.all([
          ask(method, API_REFERENCE_PATHS.page),
          ask(method, API_REFERENCE_PATHS.viewer),
          ask(method, '/api/no-such-page'),
        ]);
        expect(shape(pageAnswer), method).toEqual(shape(unknownAnswer));
        expect(shape(viewerAnswer), method).toEqual(shape(unknownAnswer));
        expect(shape(unknownAnswer), method).toMatchObject({ status: 404, contentType: 'application/problem+json', policy: undefined, allow: undefined, body: { code: 'not_found' } });
      }
    } finally {
      await host.stop();
    }
  });

  it('serves it with API_DOCS_IN_PRODUCTION=true: every operation rendered, nothing asked of another origin, no violation', async () => {
    const host = await startLocalHost({ ...productionSettings(azurite, workDir), API_DOCS_IN_PRODUCTION: 'true' });
    const page = await (browser as Browser).newPage();
    try {
      const seen = await visit(page, host.baseUrl);
      expect(seen.status).toBe(200);
      expect(seen.headers['content-security-policy']).toMatch(/^default-src 'none'; script-src 'self';/);
      const origin = new URL(host.baseUrl).origin;
      expect(seen.requests.filter((url) => new URL(url).origin !== origin && !url.startsWith(`blob:${origin}/`))).toEqual([]);
      expect(seen.violations).toEqual([]);
      expect(await page.locator('[data-section-id^="operation/"]').count()).toBe(OPERATIONS.length);
    } finally {
      await page.close();
      await host.stop();
    }
  });
});
