import Module from 'node:module';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { installFunctionsCore } from '../../devhost/functions-core-shim';

/**
 * One cold start, in a fresh process: loads an app's `main` as the Functions Node worker does
 * (with `@azure/functions-core` provided, every function registers, then registration closes) and
 * prints, as one JSON line after the app's own lines, the milliseconds since this process began
 * until registration closed (Node's own start-up included, the same for every app), the CPU time
 * spent by then (less sensitive to other work on the machine than the wall clock), how many
 * modules were loaded, and when the app's `appStart` hooks were done (`readyMs`).
 *
 * Usage: node dist/bench/cold-start/probe.js <app root> <entry file>...
 */
const [appRoot, ...entries] = process.argv.slice(2);
if (!appRoot || entries.length === 0) throw new Error('usage: probe.js <app root> <entry file>...');
const core = installFunctionsCore(() => undefined);
const requireFromApp = Module.createRequire(path.join(appRoot, 'package.json'));
for (const entry of entries) requireFromApp(entry);
core.closeRegistration();
const ms = performance.now();
const { user, system } = process.cpuUsage();
const modules = Object.keys(require.cache).length;
const registrations = core.registrations().length;

/**
 * What the worker does next, before it answers the host (its `startApp`): the app's `appStart`
 * hooks, one after another. The figure judged is the registration's (`ms`); `readyMs` says when the
 * worker would answer, the hooks' own work (and what they wait for) included.
 */
async function runAppStartHooks(): Promise<number> {
  for (const hook of core.hooks('appStart')) await hook({ hookData: {}, appHookData: {}, functionAppDirectory: appRoot });
  return performance.now();
}

void runAppStartHooks().then((readyMs) => {
  process.stdout.write(`${JSON.stringify({ ms, cpuMs: (user + system) / 1000, modules, registrations, readyMs })}\n`);
  // The measurement is the load. With BENCH_PROBE_STAY_MS the process lives on that long, so the
  // bench can see when what the app scheduled after registration (a telemetry backend loading in the
  // background) is done; otherwise it would only delay this process's exit.
  const stayMs = Number(process.env.BENCH_PROBE_STAY_MS ?? 0);
  if (stayMs > 0) {
    // The bench ends this process once it has seen what it waits for: the compile cache is written
    // now, as a normal exit would, so the next start finds it.
    Module.flushCompileCache?.();
    setTimeout(() => process.exit(0), stayMs);
  } else {
    process.exit(0);
  }
});
