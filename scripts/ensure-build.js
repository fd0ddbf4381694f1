// @ts-check
'use strict';
/**
 * Builds the app (`npm run build`: tsc, then the bundle that `main` names) when `dist/` is missing any
 * file the README's commands run, or is older than the sources, the TypeScript settings or the
 * installed packages (the bundle holds some of them). `npm start`, `npm run dev:token` and
 * `npm run reset` run it first, so a fresh clone needs nothing but `npm install && npm start`.
 *
 * Plain JavaScript on purpose: it runs before anything is compiled. The build's own output goes to
 * stderr, because `npm run -s dev:token` prints the token on stdout for a shell to capture.
 *
 * `node scripts/ensure-build.js --check` only reports (exit 0 fresh, 1 stale), for tests.
 */
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, statSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

/** What the README's commands run: the entry point and its bundle, the local host, the scripts. */
const OUTPUTS = [
  'dist/app/main.js',
  'dist/app/functions.js',
  'dist/app/telemetry-worker.js',
  // The API reference page's viewer (`GET /api/docs/viewer.js`), which the bundle step writes beside it.
  'dist/app/api-reference/redoc.standalone.js',
  'dist/devhost/start.js',
  'dist/devhost/main.js',
  'dist/scripts/dev-token.js',
  'dist/scripts/reset.js',
  'dist/scripts/infra-build.js',
];
/** The folders tsc compiles (tsconfig.json `include`); test files are not part of the build. */
const SOURCE_FOLDERS = ['functions', 'shared', 'devhost', 'scripts', 'bench'];
/** Written by runs (the bench's scratch files), never compiled. */
const SKIPPED_FOLDERS = new Set(['tmp', 'node_modules']);
/** Files whose change changes the build: compiler settings, and the packages the bundle takes in. */
const SOURCE_FILES = ['tsconfig.json', 'package.json', 'package-lock.json', 'node_modules/.package-lock.json'];

/** @param {string} folder @param {(file: string) => void} visit */
function walk(folder, visit) {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_FOLDERS.has(entry.name)) walk(full, visit);
    } else if (entry.isFile() && /\.(ts|json)$/.test(entry.name) && !entry.name.endsWith('.test.ts')) visit(full);
  }
}

/** @returns {string | undefined} why a build is needed, or undefined when dist/ is up to date */
function staleReason() {
  let oldestOutput = Infinity;
  for (const output of OUTPUTS) {
    const file = path.join(root, output);
    if (!existsSync(file)) return `${output} is missing`;
    oldestOutput = Math.min(oldestOutput, statSync(file).mtimeMs);
  }
  /** @type {string | undefined} */
  let newer;
  const check = (/** @type {string} */ file) => {
    if (newer === undefined && statSync(file).mtimeMs > oldestOutput) newer = path.relative(root, file);
  };
  for (const folder of SOURCE_FOLDERS) {
    const full = path.join(root, folder);
    if (existsSync(full)) walk(full, check);
  }
  for (const file of SOURCE_FILES) {
    const full = path.join(root, file);
    if (existsSync(full)) check(full);
  }
  return newer === undefined ? undefined : `${newer} changed since the last build`;
}

module.exports = { OUTPUTS };

if (require.main === module) {
  const reason = staleReason();
  if (process.argv.includes('--check')) {
    process.stderr.write(reason === undefined ? 'build: up to date\n' : `build: stale (${reason})\n`);
    process.exit(reason === undefined ? 0 : 1);
  }
  if (reason !== undefined) {
    process.stderr.write(`build: ${reason}; running npm run build\n`);
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const build = spawnSync(npm, ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 2, 2], shell: process.platform === 'win32' });
    if (build.status !== 0) {
      process.stderr.write(`build: npm run build failed (exit ${build.status ?? build.signal}); see the lines above\n`);
      process.exit(1);
    }
  }
}
