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
 * modules were loaded, when the app's `appStart` hooks were done (`readyMs`: when the worker
 * answers the host, the judged figure), and with `BENCH_PROBE_INVOKE=<function name>` how long the
 * first invocation of that HTTP function took right after ready, and a second one after it.
 *
 * Usage: node dist/bench/cold-start/probe.js <app root> <entry file>...
 */
const [appRoot, ...entries] = process.argv.slice(2);
if (!appRoot || entries.length === 0) throw new Error('usage: probe.js <app root> <entry file>...');
const invokeName = process.env.BENCH_PROBE_INVOKE;
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
 * hooks, one after another. `readyMs` is when the worker would answer, the hooks' own work (and
 * what they wait for) included: the figure judged.
 */
async function runAppStartHooks(): Promise<number> {
  for (const hook of core.hooks('appStart')) await hook({ hookData: {}, appHookData: {}, functionAppDirectory: appRoot });
  return performance.now();
}

/**
 * Invokes the registered HTTP function `name` as the worker would (the library's own request and
 * context classes, the app's copy of them), and answers the ms it took until its result.
 */
async function invokeOnce(name: string, sequence: number): Promise<number> {
  const registration = core.registrations().find((r) => r.metadata.name === name);
  if (!registration) throw new Error(`no function named ${name}`);
  const functions = requireFromApp('@azure/functions') as typeof import('@azure/functions');
  const started = performance.now();
  const request = new functions.HttpRequest({ method: 'GET', url: `http://127.0.0.1:7071/api/${name}`, headers: {} });
  const context = new functions.InvocationContext({ functionName: name, invocationId: `00000000-0000-4000-8000-00000000000${sequence}` });
  const result = (await registration.handler(request, context)) as { status?: number } | undefined;
  const took = performance.now() - started;
  if ((result?.status ?? 200) !== 200) throw new Error(`${name} answered ${String(result?.status)}`);
  return took;
}

async function startAndInvoke(): Promise<Record<string, number>> {
  const readyMs = await runAppStartHooks();
  if (!invokeName) return { readyMs };
  // Right after ready, as a host that had a request waiting would send it.
  const firstInvocationMs = await invokeOnce(invokeName, 1);
  const secondInvocationMs = await invokeOnce(invokeName, 2);
  return { readyMs, firstInvocationMs, secondInvocationMs };
}

void startAndInvoke().then((times) => {
  process.stdout.write(`${JSON.stringify({ ms, cpuMs: (user + system) / 1000, modules, registrations, ...times })}\n`);
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
