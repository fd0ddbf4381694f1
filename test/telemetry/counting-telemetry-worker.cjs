// @ts-check
'use strict';
/**
 * A stand-in for `telemetry-worker.js` that owns no SDK: it answers `ready` at once and, for every
 * message the facade posts, writes one line back (relayed to the test's log) saying what the
 * message carried, so worker-telemetry.test.ts can see how calls travel through the port.
 */
const { parentPort } = require('node:worker_threads');

const port = parentPort;
if (!port) throw new Error('counting-telemetry-worker.cjs runs as a worker thread only');
let received = 0;
let message = 0;
/** @param {Record<string, unknown>} fields */
const line = (fields) => port.postMessage({ kind: 'line', line: JSON.stringify({ level: 'info', message: 'telemetry message received', ...fields }) });

port.postMessage({ kind: 'ready', backend: 'counting' });
port.on('message', (/** @type {any} */ posted) => {
  message += 1;
  if (posted.kind === 'items') {
    /** @type {{ item: { properties: { result: string } }, context: { traceId: string } }[]} */
    const items = posted.items;
    received += items.length;
    line({
      messageNumber: message,
      kind: 'items',
      items: items.length,
      firstResult: items[0]?.item.properties.result ?? null,
      lastResult: items[items.length - 1]?.item.properties.result ?? null,
      // Each item's result names the trace it was tracked in: the context must have come with it.
      contextsKept: items.every(({ item, context }) => context.traceId.startsWith(item.properties.result.split('-')[0] ?? '?')),
    });
    return;
  }
  line({ messageNumber: message, kind: String(posted.kind) });
  if (posted.kind === 'flush') port.postMessage({ kind: 'flushed', id: posted.id, received });
});
