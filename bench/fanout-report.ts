import type { Channel } from '../shared/notifications/providers/delivery';
import { EXPECTED_RESULT, FANOUT_GOAL_RATIO, FANOUT_SMS_CAP_USD, type FanoutMeasurement, type FanoutPhase, type FanoutPhaseName } from './fanout';
import { count, mib, table } from './markdown';

const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 1000 ? 2 : 1)} s`;
const percent = (part: number, whole: number): string => `${((part / whole) * 100).toFixed(0)}%`;

const LABEL: Record<FanoutPhaseName, string> = { push: 'Push alone', sms: 'SMS alone', email: 'E-mail alone', combined: 'All three (combined)' };
const CHANNEL_LABEL: Record<Channel, string> = { push: 'push', sms: 'SMS', email: 'e-mail' };

const ratio = (p: FanoutPhase): number => p.result.wallMs / p.floor.floorMs;
const goal = (p: FanoutPhase): string => (ratio(p) <= FANOUT_GOAL_RATIO ? `met (≤ ${FANOUT_GOAL_RATIO}×)` : `**not met** (> ${FANOUT_GOAL_RATIO}×)`);

function requestsMade(p: FanoutPhase): string {
  const r = p.requests;
  const parts = [
    r.push > 0 ? `push ${count(r.push)}` : '',
    r.sms > 0 ? `SMS ${count(r.sms)}` : '',
    r.emailSend > 0 ? `e-mail sends ${count(r.emailSend)}` : '',
    r.pushReceipts > 0 ? `push receipts ${count(r.pushReceipts)}` : '',
    r.repeats > 0 ? `repeats ${count(r.repeats)}` : '',
  ].filter(Boolean);
  return parts.join(', ');
}

function results(p: FanoutPhase): string {
  return p.channels
    .map((channel) => {
      const counts = Object.entries(p.result.tally[channel]).map(([result, n]) => `${result} ${count(n ?? 0)}`);
      return `${CHANNEL_LABEL[channel]}: ${counts.join(', ') || 'none'}`;
    })
    .join('; ');
}

function floorText(p: FanoutPhase, plan: FanoutMeasurement['plan'], concurrency: number): string {
  const f = p.floor;
  const requestBound = `${count(p.planned.total)} ÷ ${f.inFlight} × ${plan.providerDelayMs} ms = ${seconds(f.requestBoundMs)}`;
  const batchBound = `${f.batchesPerSlot} × ⌈${count(f.smallestBatchRequests)} ÷ ${concurrency}⌉ × ${plan.providerDelayMs} ms = ${seconds(f.batchBoundMs)}`;
  return f.batchBoundMs > f.requestBoundMs ? `${batchBound} (requests: ${requestBound})` : `${requestBound} (batches: ${batchBound})`;
}

/**
 * The fan-out section of bench/results.md (issue 4): one run per channel and the combined run,
 * each with the provider requests it made, its time against its own floor (the provider-latency
 * bound, `FanoutFloor`) and the goal, the ledger results, e-mail status polls, CPU and peak RSS.
 */
export function renderFanoutSection(m: FanoutMeasurement): string[] {
  const { plan } = m;
  const first = m.phases[0];
  if (!first) return [];
  const recipients = first.result.recipients;
  const inFlight = m.deliveryConcurrency * plan.parallelBatches;
  const email = m.phases.find((p) => p.channels.includes('email'));
  const rows = (label: string, cell: (p: FanoutPhase) => string): string[] => [label, ...m.phases.map(cell)];
  const pushSizes = (p: FanoutPhase): string =>
    p.pushBatchSizes ? (p.pushBatchSizes.min === p.pushBatchSizes.max ? String(p.pushBatchSizes.min) : `${p.pushBatchSizes.min}–${p.pushBatchSizes.max}`) : '–';

  return [
    `## Notification fan-out: ${count(recipients)} recipients on push, SMS and e-mail (issue 4)`,
    '',
    `In-process, not on the local host: a worker process runs \`runFanoutInProcess\` (the first queue message splits the audience, then its ${first.result.batches} batch messages of up to ${m.batchSize} recipients are handled ${plan.parallelBatches} at a time, as the Functions host runs several queue messages at once; no storage queue) with the app's composition root (\`buildFanoutDeps\` → \`createDeliveryProviders\`, from \`ACS_CONNECTION_STRING\`, \`EXPO_PUSH_URL\`), SQLite, the Expo adapter (\`fetch\`) and the ACS adapters on the official SDKs (\`@azure/communication-sms\`, \`@azure/communication-email\`: HMAC signing, retries in the SDK pipeline). They talk to the fake Expo push and ACS servers (\`test/helpers/fake-providers\`), which run in the bench process on 127.0.0.1 and answer every request after ${plan.providerDelayMs} ms. The fake ACS answers as ACS does: an e-mail send gets 202 with \`Operation-Location\`, and its operation stays \`Running\` (with \`retry-after: ${plan.acs.emailRetryAfterSeconds}\`) for ${plan.acs.emailPollsUntilDone} status request(s) before \`Succeeded\`; an SMS gets 202 with its message id. The send path records SMS and e-mail as \`accepted\` at ACS's answer (the delivery report settles them later) and never polls an e-mail operation, so the 20 s \`retry-after\` must cost it nothing: the run fails if any status request comes during a fan-out. Each recipient is an active adult with an e-mail address, a phone number and one push token; SMS spend cap $${FANOUT_SMS_CAP_USD}, so the guard stops none. \`LOG_LEVEL=info\`: every line is formatted, then dropped by a counting sink.`,
    '',
    `**How each channel gets its own floor.** The same audience is fanned out ${m.phases.length} times, one after another: an announcement on push alone, on SMS alone, on e-mail alone, then one on all three (the run before this change measured only the last). Each run has a fresh SQLite database with the same ${count(recipients)} recipients and a fresh worker process (so its RSS and CPU are its own, and no run inherits another's warm-up or ledger rows), and the fakes' counts are reset between runs. A channel's time is its own run's, from the first message to the last batch's end; its floor is the provider-latency bound of that run alone: at most ${m.deliveryConcurrency} requests in flight per batch message × ${plan.parallelBatches} batch messages = ${inFlight}, each answered after ${plan.providerDelayMs} ms, so the floor is the larger of requests ÷ ${inFlight} × ${plan.providerDelayMs} ms and (batch messages per slot) × ⌈requests of one batch ÷ ${m.deliveryConcurrency}⌉ × ${plan.providerDelayMs} ms. For SMS and e-mail the two agree; push sends 100 devices a request, so its 100 requests fit in one round per batch and the batch bound (one ${plan.providerDelayMs} ms round per batch message, ${first.floor.batchesPerSlot} per slot) is the larger. Measuring channels inside the combined run instead would not be honest: there the three share the same ${m.deliveryConcurrency} slots per batch, so a channel's completion time depends on the order the batch queues its sends in, not on the channel.`,
    '',
    table(
      ['Run', 'Provider requests', 'Floor', '**Time**', 'Time ÷ floor', `Goal ≤ ${FANOUT_GOAL_RATIO}× the floor`, 'Worker CPU (share of one core)', 'Worker peak RSS'],
      m.phases.map((p) => [
        LABEL[p.name],
        count(p.planned.total),
        seconds(p.floor.floorMs),
        `**${seconds(p.result.wallMs)}**`,
        `×${ratio(p).toFixed(2)}`,
        goal(p),
        `${seconds(p.result.cpuMs)} (${percent(p.result.cpuMs, p.result.wallMs)})`,
        `${mib(p.peakBytes)} MiB`,
      ]),
      6,
    ),
    '',
    table(
      ['Measurement', ...m.phases.map((p) => LABEL[p.name])],
      [
        rows('Results in the ledger (by result)', results),
        rows(
          `Expected: every recipient \`${EXPECTED_RESULT.push}\` on push, \`${EXPECTED_RESULT.sms}\` on SMS and e-mail`,
          (p) => (p.channels.every((c) => p.result.tally[c][EXPECTED_RESULT[c]] === p.result.recipients) ? 'yes' : '**no**') + ` (failed batches: ${p.result.failedBatches})`,
        ),
        rows('Provider requests made (planned)', (p) => `${count(p.requests.push + p.requests.sms + p.requests.emailSend + p.requests.pushReceipts + p.requests.emailStatus)}: ${requestsMade(p)} (${count(p.planned.total)})`),
        rows('Messages per push request', pushSizes),
        rows('**E-mail status requests during the fan-out** (must be 0)', (p) => (p.channels.includes('email') ? `**${count(p.requests.emailStatus)}**` : '–')),
        rows('After the run: one status request for an accepted e-mail (the settle timer\'s path)', (p) =>
          p.result.emailOperationCheck === undefined ? '–' : `\`${p.result.emailOperationCheck}\` (${count(p.emailStatusAfter)} request)`,
        ),
        rows('Floor', (p) => floorText(p, plan, m.deliveryConcurrency)),
        rows('Provider requests per second (at the floor)', (p) => `${count((p.planned.total * 1000) / p.result.wallMs)} (${count((p.planned.total * 1000) / p.floor.floorMs)})`),
        rows('Worker CPU per recipient', (p) => `${(p.result.cpuMs / p.result.recipients).toFixed(2)} ms`),
        rows('CPU time of the fake providers (bench process) meanwhile', (p) => seconds(p.fakesCpuMs)),
        rows('Worker RSS: started / **peak** / peak above start', (p) => `${mib(p.idleBytes)} / **${mib(p.peakBytes)}** / ${mib(p.peakBytes - p.idleBytes)} MiB`),
        rows('Peak V8 heap in use (worker)', (p) => `${mib(p.result.peakHeapUsedBytes)} MiB`),
        rows('Log lines (warn or error)', (p) => `${count(p.result.logLines)} (${count(p.result.warnOrErrorLines)})`),
        rows(`Writing the audience (${count(recipients)} users and push tokens, one transaction)`, (p) => seconds(p.seedMs)),
        rows('Load average (1 min) when the run started', (p) => p.loadBefore.toFixed(2)),
      ],
      m.phases.length,
    ),
    '',
    `Peak RSS: the highest of the worker's readings every ${plan.sampleEveryMs} ms and, on Linux, its VmHWM (reset when the fan-out started). The worker is a process of its own so that its memory is the fan-out's alone and the fake providers do not share its event loop. When the worker's CPU share is near 100%, it is bound by one core, not by the providers' latency: more batches at once would not bring the time nearer the floor.`,
    '',
    ...(email ? [] : []),
  ];
}
