import { FANOUT_SMS_CAP_USD, type FanoutMeasurement } from './fanout';
import { count, mib, table } from './markdown';

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/**
 * The fan-out section of bench/results.md (issue 4): total time next to its floor (provider
 * requests ÷ requests in flight × provider latency), the provider requests made, and peak RSS.
 */
export function renderFanoutSection(m: FanoutMeasurement): string[] {
  const { plan, result: r, requests } = m;
  const concurrency = m.deliveryConcurrency * plan.parallelBatches;
  const made = requests.push + requests.pushReceipts + requests.sms + requests.emailSend + requests.emailStatus;
  const floorMs = (m.plannedRequests / concurrency) * plan.providerDelayMs;
  const tally = (channel: 'push' | 'sms' | 'email'): string => count(r.tally[channel].success ?? 0);
  const pushSizes = m.pushBatchSizes.min === m.pushBatchSizes.max ? String(m.pushBatchSizes.min) : `${m.pushBatchSizes.min}–${m.pushBatchSizes.max}`;
  const extras = [
    requests.pushReceipts > 0 ? `push receipts ${count(requests.pushReceipts)}` : '',
    `e-mail status polls ${count(requests.emailStatus)}`,
    requests.rejectedSignatures > 0 ? `**${count(requests.rejectedSignatures)} refused signatures**` : '',
  ].filter(Boolean);
  return [
    `## Notification fan-out: ${count(r.recipients)} recipients on push, SMS and e-mail (issue 4)`,
    '',
    `In-process, not on the local host: a worker process runs \`runFanoutInProcess\` (the first queue message splits the audience, then its ${r.batches} batch messages of up to ${m.batchSize} recipients are handled ${plan.parallelBatches} at a time, as the Functions host runs several queue messages at once; no storage queue) with the app's composition root, SQLite, and the real Expo and ACS adapters (\`fetch\`, ACS HMAC signing). They talk to the fake Expo push and ACS SMS/e-mail servers (\`test/helpers/fake-providers\`), which run in the bench process on 127.0.0.1 and answer every request after ${plan.providerDelayMs} ms; ACS reports each e-mail as delivered at once, so no status polls. Each recipient is an active adult with an e-mail address, a phone number and one push token; SMS spend cap $${FANOUT_SMS_CAP_USD}, so the guard stops none. \`LOG_LEVEL=info\`: every line is formatted, then dropped by a counting sink. Load average (1 min) when the fan-out started: ${m.loadBefore.toFixed(2)}.`,
    '',
    table(
      ['Measurement', 'Value'],
      [
        ['Deliveries that succeeded: push / SMS / e-mail', `${tally('push')} / ${tally('sms')} / ${tally('email')} (failed batches: ${r.failedBatches})`],
        [
          'Provider requests made',
          `${count(made)}: push ${count(requests.push)} (${pushSizes} messages each), SMS ${count(requests.sms)}, e-mail ${count(requests.emailSend)}; ${extras.join(', ')}`,
        ],
        ['Requests in flight at most: delivery concurrency × parallel batches', `${m.deliveryConcurrency} × ${plan.parallelBatches} = ${concurrency}`],
        [`Floor: ${count(m.plannedRequests)} requests ÷ ${concurrency} × ${plan.providerDelayMs} ms`, seconds(floorMs)],
        ['**Total time** (split and every batch)', `**${seconds(r.wallMs)}** (×${(r.wallMs / floorMs).toFixed(2)} the floor)`],
        [
          `Provider requests per second (at the floor: ${concurrency} ÷ ${plan.providerDelayMs} ms)`,
          `${count((made * 1000) / r.wallMs)} (${count((concurrency * 1000) / plan.providerDelayMs)})`,
        ],
        ['CPU time of the worker during the fan-out (share of one core)', `${seconds(r.cpuMs)} (${((r.cpuMs / r.wallMs) * 100).toFixed(0)}%)`],
        ['CPU time of the fake providers (bench process) meanwhile', seconds(m.fakesCpuMs)],
        ['Worker RSS: started (services built, database open) / **peak** / peak above start', `${mib(m.idleBytes)} / **${mib(m.peakBytes)}** / ${mib(m.peakBytes - m.idleBytes)} MiB`],
        ['Peak V8 heap in use (worker)', `${mib(r.peakHeapUsedBytes)} MiB`],
        ['Log lines (warn or error)', `${count(r.logLines)} (${count(r.warnOrErrorLines)})`],
        [`Writing the audience (${count(r.recipients)} users and push tokens, one transaction)`, seconds(m.seedMs)],
      ],
      1,
    ),
    '',
    `Peak RSS: the highest of ${m.readings} readings of the worker every ${plan.sampleEveryMs} ms and, on Linux, its VmHWM (reset when the fan-out started). The worker is a process of its own so that its memory is the fan-out's alone and the fake providers do not share its event loop. When the worker's CPU share is near 100%, it is bound by one core, not by the providers' latency: more batches at once would not bring the time nearer the floor.`,
    '',
  ];
}
