// @ts-check
'use strict';
/**
 * The README's quick start, done as a newcomer does it, on the tree as it is (CI: a fresh clone, before
 * anything else builds there):
 *   `npm ci` (standing for `npm install`), then three rounds of
 *   `npm start` in the background → /api/health 200 within 60 s → the README's "probes" and
 *   "walk-through" blocks, run as written by `bash -e` → Ctrl-C (SIGINT to npm's process group) →
 *   npm, the app and the Azurite it started have all exited and nothing listens on their ports.
 * The rounds: as cloned; after `npm run reset` (a second start, on a tree with data); after
 * `npm run reset` with `PORT` set to another port in the environment.
 *
 * A failure prints what the newcomer would have seen (the last lines of `npm start`'s output) and
 * exits 1. Plain JavaScript: it runs before anything is compiled.
 *
 * usage: node scripts/quick-start-check.js [--no-install] [--host func|local]
 *   --host   fail unless npm start chose this host (`func start` when Core Tools are installed, else the
 *            project's local host); without it, either will do.
 */
const { spawn, spawnSync } = require('node:child_process');
const { closeSync, mkdirSync, openSync, readFileSync } = require('node:fs');
const { connect } = require('node:net');
const path = require('node:path');
const { readmeBlock } = require('./readme-blocks');

const root = path.resolve(__dirname, '..');
const logDir = path.join(root, '.tools', 'quick-start');
/** The README's promise: `npm install && npm start` serves /api/health within this long on a fresh clone. */
const HEALTH_DEADLINE_MS = 60_000;
/** SHUTDOWN_GRACE_SECONDS (30) and a margin: a clean stop never takes longer. */
const STOP_DEADLINE_MS = 40_000;
/** Azurite's ports: the queue the local host starts, and blob and table too for func start. */
const AZURITE_PORTS = [10000, 10001, 10002];
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

class CheckFailed extends Error {}

const HOST_NOTES = {
  func: 'npm start: running the Azure Functions host (func start',
  local: "npm start: Azure Functions Core Tools (func) not available; running the project's local host",
};

/** @returns {keyof typeof HOST_NOTES | undefined} */
function expectedHost() {
  const index = process.argv.indexOf('--host');
  if (index < 0) return undefined;
  const host = process.argv[index + 1];
  if (host !== 'func' && host !== 'local') throw new CheckFailed('--host takes func or local');
  return host;
}

/** @param {string} message */
function say(message) {
  process.stdout.write(`quick-start: ${message}\n`);
}

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** @param {number} port @returns {Promise<boolean>} */
function isListening(port) {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    /** @param {boolean} listening */
    const done = (listening) => {
      socket.destroy();
      resolve(listening);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** @param {number} port @returns {Promise<number | undefined>} the status of GET /api/health, if any answer */
async function healthStatus(port) {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return undefined;
  }
}

/** @param {number} pgid @returns {boolean} whether any process of the group is still alive */
function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** @param {string} file @param {number} lines */
function tail(file, lines) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no output)';
  }
}

/** @param {string[]} args @param {NodeJS.ProcessEnv} env */
function runNpm(args, env) {
  say(`npm ${args.join(' ')}`);
  const result = spawnSync(npm, args, { cwd: root, env, stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.status !== 0) throw new CheckFailed(`npm ${args.join(' ')} exited ${result.status ?? result.signal}`);
}

/**
 * One round: npm start, health, the README's blocks, Ctrl-C, nothing left.
 * @param {{ label: string, port: number, env: NodeJS.ProcessEnv, logFile: string }} round
 */
async function runRound(round) {
  const { label, port, env, logFile } = round;
  for (const busy of [port, ...AZURITE_PORTS]) {
    if (await isListening(busy)) throw new CheckFailed(`port ${busy} is already in use before npm start; stop what holds it`);
  }
  say(`${label}: npm start (output in ${path.relative(root, logFile)})`);
  const out = openSync(logFile, 'w');
  const started = Date.now();
  // Its own process group, as a terminal's foreground job: Ctrl-C reaches npm, the app and Azurite alike.
  const child = spawn(npm, ['start'], { cwd: root, env, stdio: ['ignore', out, out], detached: true });
  closeSync(out);
  /** @type {{ code: number | null, signal: NodeJS.Signals | null } | undefined} */
  let exit;
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve((exit = { code, signal }))));
  const pgid = /** @type {number} */ (child.pid);
  try {
    let status;
    while (Date.now() - started < HEALTH_DEADLINE_MS && exit === undefined) {
      status = await healthStatus(port);
      if (status === 200) break;
      await sleep(250);
    }
    if (status !== 200) {
      throw new CheckFailed(
        exit
          ? `npm start exited (${exit.code ?? exit.signal}) before /api/health answered`
          : `/api/health did not answer 200 within ${HEALTH_DEADLINE_MS / 1000} s (last: ${status ?? 'no answer'})`,
      );
    }
    say(`${label}: /api/health 200 after ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const host = expectedHost();
    if (host && !readFileSync(logFile, 'utf8').includes(HOST_NOTES[host])) {
      throw new CheckFailed(`npm start did not run the ${host === 'func' ? 'Azure Functions host' : "project's local host"}`);
    }

    const script = `set -euo pipefail\n${readmeBlock('probes')}\n${readmeBlock('walk-through')}`;
    const walk = spawnSync('bash', ['-c', script], { cwd: root, env, encoding: 'utf8', timeout: 120_000 });
    process.stdout.write(walk.stderr.split('\n').filter((line) => /^[✓✗]/.test(line)).map((line) => `  ${line}\n`).join(''));
    if (walk.status !== 0) {
      process.stdout.write(`--- the README's blocks printed:\n${walk.stdout}${walk.stderr}---\n`);
      throw new CheckFailed(`the README's probes and walk-through failed (exit ${walk.status ?? walk.signal})`);
    }

    process.kill(-pgid, 'SIGINT');
    const stopped = await Promise.race([exited.then(() => true), sleep(STOP_DEADLINE_MS).then(() => false)]);
    if (!stopped) throw new CheckFailed(`npm start did not exit within ${STOP_DEADLINE_MS / 1000} s of Ctrl-C`);
    // The app and Azurite may take a moment longer than npm itself.
    for (let waited = 0; waited < 10_000 && groupAlive(pgid); waited += 200) await sleep(200);
    if (groupAlive(pgid)) throw new CheckFailed('a process npm start began (the app or Azurite) is still running after Ctrl-C');
    for (const left of [port, ...AZURITE_PORTS]) {
      if (await isListening(left)) throw new CheckFailed(`port ${left} still listens after npm start stopped`);
    }
    say(`${label}: stopped cleanly on Ctrl-C (npm exit ${exit?.code ?? exit?.signal}), nothing left listening`);
  } catch (error) {
    process.stdout.write(`--- the last lines of npm start's output (${path.relative(root, logFile)}):\n${tail(logFile, 40)}\n---\n`);
    if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
    throw error;
  }
}

async function main() {
  mkdirSync(logDir, { recursive: true });
  const baseEnv = { ...process.env };
  // A PORT from the caller's shell would move round one; the rounds set it themselves.
  delete baseEnv.PORT;
  if (!process.argv.includes('--no-install')) runNpm(['ci', '--no-audit', '--no-fund'], baseEnv);
  const otherPort = 7181;
  const rounds = [
    { label: 'first start', reset: false, port: 7071, env: baseEnv },
    { label: 'after npm run reset', reset: true, port: 7071, env: baseEnv },
    { label: `PORT=${otherPort}, after npm run reset`, reset: true, port: otherPort, env: { ...baseEnv, PORT: String(otherPort) } },
  ];
  for (const [index, round] of rounds.entries()) {
    if (round.reset) runNpm(['run', 'reset'], round.env);
    await runRound({ ...round, logFile: path.join(logDir, `round-${index + 1}.log`) });
  }
  say(`passed: ${rounds.length} rounds`);
}

main().catch((error) => {
  process.stdout.write(`quick-start: FAILED: ${error instanceof CheckFailed ? error.message : error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
