/**
 * Runs `flush` and resolves when it settles or after `timeoutMs`, whichever comes first; never
 * rejects. Exporters report their own failures; a shutdown must not hang on an endpoint that never
 * answers, nor fail because of one.
 */
export async function flushWithin(flush: () => Promise<unknown>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
    timer.unref();
  });
  try {
    await Promise.race([
      Promise.resolve()
        .then(flush)
        .catch(() => undefined),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
