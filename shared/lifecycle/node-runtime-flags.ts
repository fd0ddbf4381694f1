/**
 * The flags every process of the app runs Node.js with, wherever it runs: the Functions host's
 * Node worker (the app setting `languageWorkers__node__arguments`, infra/modules/function-app.bicep),
 * both hosts of `npm start` (devhost/start.ts), the tests' local host and the bench's fan-out
 * worker, so what is measured and tested is what runs in production.
 *
 * `--experimental-async-context-frame`: `AsyncLocalStorage` (the log context, the transaction
 * scope, the time budget) backed by AsyncContextFrame instead of async hooks, which otherwise run
 * a hook on every promise the process makes: a tenth of an SMS's CPU in the fan-out
 * (bench/results.md). It is Node 24's default (its flag is `--no-async-context-frame`); the image
 * pins Node 22 (Dockerfile), and the flag goes when the image moves to Node 24.
 */
export const NODE_RUNTIME_FLAGS: readonly string[] = ['--experimental-async-context-frame'];

/** The flags as one setting's value (`languageWorkers__node__arguments`). */
export const NODE_RUNTIME_ARGUMENTS = NODE_RUNTIME_FLAGS.join(' ');

/** True when this process runs with every one of the flags. */
export function hasNodeRuntimeFlags(execArgv: readonly string[] = process.execArgv): boolean {
  return NODE_RUNTIME_FLAGS.every((flag) => execArgv.includes(flag));
}
