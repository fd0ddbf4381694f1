import { readFileSync } from 'node:fs';

/** Polls `done` every `everyMs` until it holds; throws `timed out waiting for <what>` after `timeoutMs`. */
export async function waitFor(what: string, done: () => boolean, timeoutMs: number, everyMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** The process state letter of `/proc/<pid>/stat` (`T`: stopped). */
export function processState(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
}

/**
 * Turns for the busy part of crash scenarios run side by side (sign-ups, fan-out, kill, restart):
 * one at a time, so only their waits for the recovery overlap and they load the machine no more
 * than one would.
 */
export function busyTurns(): () => { ready: Promise<void>; done: () => void } {
  let last: Promise<void> = Promise.resolve();
  return () => {
    const ready = last;
    let done: () => void = () => undefined;
    last = new Promise<void>((resolve) => (done = resolve));
    return { ready, done };
  };
}
