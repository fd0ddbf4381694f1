import { GROUP_COMMIT_MS, GROUP_COMMIT_ROWS } from '../shared/notifications/engine/delivery-context';
import type { Channel } from '../shared/ports/delivery';
import {
  EXPECTED_RESULT,
  FANOUT_GOAL_RATIOS,
  FANOUT_SMS_CAP_USD,
  PUSH_GOAL_RATIO,
  PUSH_SCALING_GOAL,
  type AdapterChannel,
  type AdapterPhase,
  type FanoutMeasurement,
  type FanoutPhase,
  type FanoutPhaseName,
} from './fanout';
import { verdictOf, type GoalRow } from './goals';
import { count, mib, spreadText, table, times } from './markdown';
import { spread, type Spread } from './stats';
import { NODE_RUNTIME_ARGUMENTS } from '../shared/lifecycle/node-runtime-flags';

const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 1000 ? 2 : 1)} s`;
const percent = (part: number, whole: number): string => `${((part / whole) * 100).toFixed(0)}%`;
const perItem = (ms: number, items: number): string => `${(ms / items).toFixed(2)} ms`;

const LABEL: Record<FanoutPhaseName, string> = { push: 'Push alone', sms: 'SMS alone', email: 'E-mail alone', combined: 'All three (combined)' };
const CHANNEL_LABEL: Record<Channel, string> = { push: 'push', sms: 'SMS', email: 'e-mail' };
const ADAPTER_LABEL: Record<AdapterChannel, string> = {
  sms: 'SMS: the app\'s adapter (`POST /sms` through the SDK\'s pipeline pieces, `acs-send-pipeline.ts`)',
  email: 'E-mail: the app\'s adapter (`POST /emails:send` through the SDK\'s pipeline pieces, `acs-send-pipeline.ts`)',
};

/**
 * Time ÷ floor of each repeat: min / median / max. Push's floor is the provider floor
 * plus the ledger floor measured beside the same repeat; the other channels' is the provider floor.
 */
export const ratios = (p: Pick<FanoutPhase, 'repeats'>): Spread => spread(p.repeats.map((r) => r.wallMs / (r.floorMs + (r.ledgerFloorMs ?? 0))));
/** The figure the goal is judged on: the median of the repeats' time ÷ floor. */
const ratio = (p: FanoutPhase): number => ratios(p).median;
/** Each run's own bound: push alone against its floor with the ledger's, the others against the provider floor. */
const goalRatio = (p: Pick<FanoutPhase, 'name'>): number => FANOUT_GOAL_RATIOS[p.name];
const met = (p: FanoutPhase): boolean => ratio(p) <= goalRatio(p);
const goal = (p: FanoutPhase): string => (met(p) ? `met (≤ ${goalRatio(p)}×)` : `**not met** (> ${goalRatio(p)}×)`);
/** The bound of a push run at any audience size. */
const pushMet = (p: FanoutPhase): boolean => ratios(p).median <= PUSH_GOAL_RATIO;
/** The floor a run is judged against, as text: push's with its ledger share. */
export const floorOf = (p: FanoutPhase): string =>
  p.ledgerFloor
    ? `${seconds(p.floor.floorMs)} + ledger ${secondsSpread(figure(p, (r) => r.ledgerFloorMs ?? 0))}`
    : seconds(p.floor.floorMs);
/** One figure of every repeat: min / median / max. */
export const figure = (p: Pick<FanoutPhase, 'repeats'>, pick: (r: FanoutPhase['repeats'][number]) => number): Spread => spread(p.repeats.map(pick));
export const secondsSpread = (s: Spread): string => spreadText(s, (value) => seconds(value));
export const mibSpread = (s: Spread): string => `${spreadText(s, (value) => mib(value))} MiB`;

/** Provider deliveries of a run: one per recipient and channel (the combined run delivers each recipient three times). */
const deliveriesOf = (p: FanoutPhase): number => p.result.recipients * p.channels.length;

/** The worker's CPU per recipient of every repeat, as text: min / median / max. */
export const cpuPerRecipientSpread = (p: FanoutPhase): string =>
  spreadText(figure(p, (r) => r.cpuMs / p.result.recipients), (value) => `${value.toFixed(3)} ms`);

/** The worker's CPU per recipient of every repeat, and per delivery when a run has more than one channel. */
export function cpuPerRecipient(p: FanoutPhase): string {
  const perRecipient = cpuPerRecipientSpread(p);
  if (p.channels.length === 1) return `${perRecipient} a recipient`;
  return `${perRecipient} a recipient, ${spreadText(figure(p, (r) => r.cpuMs / deliveriesOf(p)), (value) => `${value.toFixed(3)} ms`)} a delivery`;
}

/** The goal summary's rows of the fan-out: each run within its own bound of its floor. */
export function fanoutGoals(m: FanoutMeasurement): GoalRow[] {
  return m.phases.map((p) => ({
    goal: p.ledgerFloor
      ? `Fan-out, push alone, ${count(p.result.recipients)} recipients: ≤ ${goalRatio(p)}× (provider floor + ledger floor)`
      : `Fan-out, ${LABEL[p.name].toLowerCase()}: ≤ ${goalRatio(p)}× its floor`,
    figure: `${spreadText(ratios(p), times)} the floor of ${floorOf(p)} (time ${secondsSpread(figure(p, (r) => r.wallMs))}; worker CPU ${cpuPerRecipient(p)})`,
    verdict: met(p) ? 'met' : 'not met',
  }));
}

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
      const counts = Object.entries(p.result.tally[channel]).map(([result, n]) => `\`${result}\` ${count(n ?? 0)}`);
      return `${CHANNEL_LABEL[channel]}: ${counts.join(', ') || 'none'}`;
    })
    .join('; ');
}

function floorText(p: FanoutPhase, plan: FanoutMeasurement['plan'], concurrency: number): string {
  const f = p.floor;
  const requestBound = `${count(p.planned.total)} ÷ ${f.inFlight} × ${plan.providerDelayMs} ms = ${seconds(f.requestBoundMs)}`;
  const batchBound = `${f.batchesPerSlot} × ⌈${count(f.smallestBatchRequests)} ÷ ${concurrency}⌉ × ${plan.providerDelayMs} ms = ${seconds(f.batchBoundMs)}`;
  return f.batchBoundMs > f.requestBoundMs ? `batches: ${batchBound} (requests: ${requestBound})` : `requests: ${requestBound} (batches: ${batchBound})`;
}

/** The adapter-alone run of a single-channel fan-out, when there is one. */
const adapterOf = (m: FanoutMeasurement, p: FanoutPhase): AdapterPhase | undefined =>
  p.channels.length === 1 ? m.adapters.find((a) => a.channel === p.channels[0]) : undefined;

/**
 * Why a run missed the goal, from its own numbers: on one core the worker may spend at most
 * 2 × floor of CPU; how much it spent per recipient, and how much of that the adapter alone takes.
 */
function missedGoal(m: FanoutMeasurement, p: FanoutPhase): string {
  const r = p.result;
  const budgetMs = goalRatio(p) * (p.floor.floorMs + (p.ledgerFloor?.ms ?? 0));
  const busy = r.eventLoopUtilization;
  const cpuShare = r.cpuMs / r.wallMs;
  const limit =
    busy < 0.9
      ? `The event loop was busy only ${percent(busy, 1)} of the run (CPU ${percent(cpuShare, 1)}): the worker also waited, so this run does not show one bound alone (load average ${p.loadBefore.toFixed(2)} at the start)`
      : cpuShare >= busy - 0.05
        ? `The worker's one thread was the limit, not the providers: its event loop was busy ${percent(busy, 1)} of the run, and the process used ${percent(cpuShare, 1)} of a core (GC threads included): CPU-bound`
        : `The worker's one thread was the limit, not the providers: its event loop was busy ${percent(busy, 1)} of the run but computed only ${percent(cpuShare, 1)} of it; the gap is time the loop was blocked without computing (SQLite's synchronous file writes; or the core taken by another process, load average ${p.loadBefore.toFixed(2)} at the start)`;
  const adapter = adapterOf(m, p);
  const parts = [
    `${seconds(r.sqlite.ms)} (${perItem(r.sqlite.ms, r.recipients)} a recipient) inside SQLite statements, the largest ${r.sqlite.top[0] ? `\`${r.sqlite.top[0].sql}\` × ${count(r.sqlite.top[0].calls)}: ${seconds(r.sqlite.top[0].ms)}` : '–'}`,
    adapter
      ? `the ${CHANNEL_LABEL[p.channels[0] as Channel]} adapter alone (separate run below) ${perItem(adapter.result.cpuMs, adapter.messages)} of CPU a send`
      : p.name === 'push'
        ? `its ${count(p.planned.total)} provider requests next to nothing`
        : `the adapters alone (separate runs below) ${m.adapters
            .map((a) => `${CHANNEL_LABEL[a.channel as Channel]} ${perItem(a.result.cpuMs, a.messages)}`)
            .join(', ')} of CPU a send`,
    `${count(r.logLines)} log lines formatted`,
  ];
  return `- **${LABEL[p.name]}: ×${ratio(p).toFixed(2)} the floor (median of ${p.repeats.length}), goal not met.** In the median run: ${limit.charAt(0).toLowerCase()}${limit.slice(1)}. To stay within ${goalRatio(p)}× the floor on one thread it could spend ${seconds(budgetMs)}, ${perItem(budgetMs, r.recipients)} a recipient; it spent ${seconds(r.cpuMs)} of CPU, ${perItem(r.cpuMs, r.recipients)} a recipient. Of the run: ${parts.join('; ')}.`;
}

/** How many of a run's largest statements its table shows (the worker reports more, for the notes). */
const LARGEST_SHOWN = 3;

/** SQLite time of a run's reads (its `SELECT`s among the statements the worker reported). */
const reads = (p: FanoutPhase): number => p.result.sqlite.top.filter((t) => t.sql.startsWith('SELECT')).reduce((sum, t) => sum + t.ms, 0);

/** A statement of a run's SQLite time whose text starts with `prefix`. */
const statement = (p: FanoutPhase | undefined, prefix: string) => p?.result.sqlite.top.find((t) => t.sql.startsWith(prefix));

/**
 * What in the app's code the time goes to, with this run's numbers: the bench measures these
 * costs, it does not work around them.
 */
function appSideCosts(m: FanoutMeasurement): string[] {
  const phase = (name: FanoutPhaseName) => m.phases.find((p) => p.name === name);
  const adapter = (channel: AdapterChannel) => m.adapters.find((a) => a.channel === channel);
  const lines: string[] = [];
  const finishes = m.phases
    .map((p) => ({ p, s: statement(p, 'WITH … UPDATE NotificationDeliveries AS d') }))
    .filter((x): x is { p: FanoutPhase; s: NonNullable<typeof x.s> } => x.s !== undefined);
  const claims = m.phases.map((p) => ({ p, s: statement(p, 'WITH … INSERT INTO NotificationDeliveries') })).find((x) => x.s !== undefined);
  if (finishes.length > 0) {
    lines.push(
      `1. **The ledger's writes.** A batch claims its rows in one transaction of two or three statements whatever their number (\`claimDeliveries\`: the rows whose lease ran out, then the new ones, each statement returning the keys it took)${claims?.s ? `, in this run ${count(claims.s.calls)} inserts for ${count(claims.p.result.recipients)} recipients, ${seconds(claims.s.ms)}` : ''}; send results are written by group commit: the results of up to ${GROUP_COMMIT_ROWS} sends, or of ${GROUP_COMMIT_MS} ms, in one transaction and one statement per channel (\`DeliveryContext.finish\`, \`shared/notifications/engine/delivery-context.ts\`), and a push request's answer in one statement (\`finishDeliveries\`); the index of rows waiting for a report is partial (\`result = 'accepted'\`, migration 0008). What remains: ${finishes
        .map(({ p, s }) => `${LABEL[p.name].toLowerCase()} ${count(s.calls)}× ${seconds(s.ms)} (${perItem(s.ms, s.calls)} each, ${percent(s.ms, p.result.wallMs)} of the run)`)
        .join('; ')}; the \`COMMIT\`s of those transactions are counted apart. The price of group commit: a worker that dies loses at most those milliseconds of results, whose rows stay \`pending\` and are sent again by the redelivered message.`,
    );
  }
  const email = adapter('email');
  const sms = adapter('sms');
  if (email && sms) {
    lines.push(
      `2. **The ACS adapters.** Alone, the app's e-mail adapter costs ${perItem(email.result.cpuMs, email.messages)} of CPU a send (its \`POST /emails:send\` through the SDK's pipeline pieces, \`acs-email-provider.ts\`: no long-running-operation poller, no status request built to be cancelled) and the SMS adapter ${perItem(sms.result.cpuMs, sms.messages)} (its \`POST /sms\`, the request \`SmsClient.send\` makes, without the client's tracing spans and model mappers, \`acs-sms-provider.ts\`): HMAC signing, the SDK's authentication, retry and request-id policies (\`acs-send-pipeline.ts\`) and the HTTP request and answer.`,
    );
  }
  const smsRun = phase('sms');
  const spend = statement(smsRun, 'UPDATE SmsMonthlySpend SET spentMicroUsd');
  if (smsRun) {
    lines.push(
      `3. **Per-SMS statements.** Besides its ledger row, the SMS that start together (in one turn of the event loop) read their opt-outs and the users' preferences in one statement and reserve their spend in another (\`deliver-sms.ts\`, \`smsOptOutsOf\`, \`reserveSmsGroup\`), each an autocommit of its own${spend ? ` (the spend \`UPDATE\`: ${count(spend.calls)}× ${seconds(spend.ms)})` : ''}; the send-start marks, the claims and the result writes find their rows by key: ${count(smsRun.result.sqlite.calls)} statements for ${count(smsRun.result.recipients)} SMS in that run, ${seconds(smsRun.result.sqlite.ms)} in all.`,
    );
  }
  const any = m.phases.find((p) => p.channels.length === 1);
  if (any) {
    lines.push(
      `4. **Two log lines per delivery.** Each delivery writes its \`delivery attempt\` line and its \`notification.delivery\` telemetry event, which without an Application Insights connection string (as here) is a log line too (\`shared/telemetry/log-only.ts\`); both are formatted by pino with redaction and scrubbing: ${count(any.result.logLines)} lines for ${count(any.result.recipients)} recipients in each single-channel run.`,
    );
  }
  const push = phase('push');
  if (push && !met(push)) {
    lines.push(
      `5. **Push's budget beside its floor.** Expo takes 100 messages a request, so push's provider floor is ${seconds(push.floor.floorMs)}; with the ledger floor (${seconds(push.ledgerFloor?.ms ?? 0)}) the goal leaves the worker ${seconds(goalRatio(push) * (push.floor.floorMs + (push.ledgerFloor?.ms ?? 0)))} of wall time, ${perItem(goalRatio(push) * (push.floor.floorMs + (push.ledgerFloor?.ms ?? 0)), push.result.recipients)} a recipient, for everything on its one thread. In this run the SQLite statements alone took ${perItem(push.result.sqlite.ms, push.result.recipients)} a recipient (${count(push.result.sqlite.calls)} statements), of which reading the audience (the split's pages and each batch's recipients and devices: work the ledger floor does not count) ${perItem(reads(push), push.result.recipients)}; the rest of its CPU (${perItem(push.result.cpuMs - push.result.sqlite.ms, push.result.recipients)} a recipient) is the worker's JavaScript: the provider requests (JSON, gzip, HTTP), the ledger statements' parameters, the two log lines a recipient (item 4), and garbage collection.`,
    );
  }
  return lines.length > 0 ? ["What in the app's code the worker's time goes to (the bench measures it and does not work around it):", '', ...lines] : [];
}

/**
 * The fan-out section of bench/results.md: one run per channel and the combined run,
 * each with the provider requests it made, its time against its own floor (the provider-latency
 * bound, `FanoutFloor`) and the goal, the ledger results, e-mail status polls, CPU and peak RSS;
 * then each ACS adapter alone, and why a run missed the goal.
 */
export function renderFanoutSection(m: FanoutMeasurement): string[] {
  const repeats = m.phases[0]?.repeats.length ?? m.adapters[0]?.repeats.length ?? 1;
  const { plan } = m;
  const first = m.phases[0];
  const inFlight = m.deliveryConcurrency * plan.parallelBatches;
  const rows = (label: string, cell: (p: FanoutPhase) => string): string[] => [label, ...m.phases.map(cell)];
  const pushSizes = (p: FanoutPhase): string =>
    p.pushBatchSizes ? (p.pushBatchSizes.min === p.pushBatchSizes.max ? String(p.pushBatchSizes.min) : `${p.pushBatchSizes.min}–${p.pushBatchSizes.max}`) : '–';
  const missed = m.phases.filter((p) => !met(p));

  return [
    `## Notification fan-out: ${count(plan.recipients)} recipients on push, SMS and e-mail (goals: push ≤ ${FANOUT_GOAL_RATIOS.push}× its floor with the ledger's, SMS and e-mail ≤ ${FANOUT_GOAL_RATIOS.sms}×, all three ≤ ${FANOUT_GOAL_RATIOS.combined}×; ${repeats} repeats)`,
    '',
    `In-process, not on the local host: a worker process runs \`runFanoutInProcess\` (the first queue message splits the audience, then its ${first ? first.result.batches : '–'} batch messages of up to ${m.batchSize} recipients are handled ${plan.parallelBatches} at a time, as the Functions host runs several queue messages at once; no storage queue) with the app's composition root (\`buildFanoutDeps\` → \`createDeliveryProviders\`, from \`ACS_CONNECTION_STRING\` and \`EXPO_PUSH_URL\`), SQLite, the Expo adapter (\`node:http\`, kept-alive connections) and the ACS adapters on the Azure SDK's pipeline (\`@azure/core-rest-pipeline\` with \`@azure/communication-common\`'s HMAC signing and the SDK's retries, sending the requests \`@azure/communication-sms\` and \`@azure/communication-email\` send). They talk to the fake Expo push and ACS servers (\`test/helpers/fake-providers\`), which run in the bench process on 127.0.0.1 and answer every request after ${plan.providerDelayMs} ms. The fake ACS answers as ACS does: an SMS gets 202 with its message id; an e-mail send gets 202 with \`Operation-Location\`, and its operation stays \`Running\`, each status request told \`retry-after: ${plan.acs.emailRetryAfterSeconds}\`, until the ${plan.acs.emailPollsUntilDone}${plan.acs.emailPollsUntilDone === 1 ? 'st' : plan.acs.emailPollsUntilDone === 2 ? 'nd' : 'th'} status request answers \`Succeeded\`. The send path records SMS and e-mail as \`accepted\` at ACS's 202 (the delivery report settles them later) and asks nothing of the operation, so the ${plan.acs.emailRetryAfterSeconds} s \`retry-after\` must cost it nothing: a run fails if any status request reaches the fake during a fan-out. Each recipient is an active adult with an e-mail address, a phone number and one push token; SMS spend cap $${FANOUT_SMS_CAP_USD}, so the guard stops none. \`LOG_LEVEL=info\`: every line is formatted, then dropped by a counting sink.`,
    '',
    `**How each channel gets its own floor.** The same audience is fanned out ${m.phases.length} times, one after another: an announcement on push alone, on SMS alone, on e-mail alone, then one on all three. Each run has a fresh SQLite database with the same ${count(plan.recipients)} recipients and a fresh worker process (its RSS and CPU are its own; no run inherits another's warm-up or ledger rows); the fakes' counts are reset between runs. A channel's time is its own run's, from the first queue message to the last batch's end. Its floor is the provider-latency bound of that run: at most ${m.deliveryConcurrency} requests in flight per batch message × ${plan.parallelBatches} batch messages = ${inFlight}, each answered after ${plan.providerDelayMs} ms, so no run can be faster than the larger of *requests ÷ ${inFlight} × ${plan.providerDelayMs} ms* and *(batch messages per slot) × ⌈requests of one batch ÷ ${m.deliveryConcurrency}⌉ × ${plan.providerDelayMs} ms*. For SMS and e-mail (one request a recipient) the two agree; push sends 100 devices a request, so its few requests fit in one round per batch message and the batch bound is the larger. Per-channel times inside the combined run would not be honest: there the three channels share each batch's ${m.deliveryConcurrency} slots, so when a channel finishes depends on the order a batch queues its sends in. The combined run is kept as before, against the floor of all its requests.`,
    '',
    `**Repeats.** Every run is made ${repeats} times, interleaved (each run once, then again), each time with a fresh database and worker. The first table shows each figure as **min / median / max** of the repeats, and the goal is judged on the median of time ÷ floor; the second table and the notes below it come from each run's median run (the repeat whose time was the median).`,
    '',
    table(
      [
        'Run',
        'Provider requests',
        'Floor',
        '**Time** (min / median / max)',
        'Time ÷ floor (min / median / max)',
        'Goal (on the median)',
        'Worker CPU (min / median / max; share of one core in the median run, GC threads can take it past 100%)',
        'Worker CPU per recipient (min / median / max)',
        'Worker peak RSS (min / median / max)',
      ],
      m.phases.map((p) => [
        LABEL[p.name],
        count(p.planned.total),
        floorOf(p),
        secondsSpread(figure(p, (r) => r.wallMs)),
        spreadText(ratios(p), times),
        goal(p),
        `${secondsSpread(figure(p, (r) => r.cpuMs))} (${percent(p.result.cpuMs, p.result.wallMs)})`,
        spreadText(figure(p, (r) => r.cpuMs / p.result.recipients), (value) => `${value.toFixed(2)} ms`),
        mibSpread(figure(p, (r) => r.peakBytes)),
      ]),
      7,
    ),
    '',
    table(
      ['Measurement', ...m.phases.map((p) => LABEL[p.name])],
      [
        rows('Results in the ledger, by result', results),
        rows(
          `Every recipient \`${EXPECTED_RESULT.push}\` on push, \`${EXPECTED_RESULT.sms}\` on SMS and e-mail`,
          (p) => (p.channels.every((c) => p.result.tally[c][EXPECTED_RESULT[c]] === p.result.recipients) ? 'yes' : '**no**') + ` (failed batches: ${p.result.failedBatches})`,
        ),
        rows('Provider requests made (planned)', (p) => `${count(p.requests.push + p.requests.sms + p.requests.emailSend + p.requests.pushReceipts + p.requests.emailStatus)}: ${requestsMade(p)} (${count(p.planned.total)})`),
        rows('Messages per push request', pushSizes),
        rows('**E-mail status requests during the fan-out** (must be 0)', (p) => (p.channels.includes('email') ? `**${count(p.requests.emailStatus)}**` : '–')),
        rows("After the run, one status request for an accepted e-mail through the adapter (the settle timer's path) answered", (p) =>
          p.result.emailOperationCheck === undefined ? '–' : `\`${p.result.emailOperationCheck}\` (${count(p.emailStatusAfter)} request)`,
        ),
        rows('Floor', (p) => floorText(p, plan, m.deliveryConcurrency)),
        rows('Ledger floor (push): the same row writes with bare prepared statements, median run', (p) =>
          p.ledgerFloor
            ? `${seconds(p.ledgerFloor.ms)}: ${count(p.ledgerFloor.rowWrites)} row writes (claims, results, tickets) in ${count(p.ledgerFloor.transactions)} transactions, ${perItem(p.ledgerFloor.ms, p.result.recipients)} a recipient`
            : '–',
        ),
        rows('Provider requests per second (at the floor)', (p) => `${count((p.planned.total * 1000) / p.result.wallMs)} (${count((p.planned.total * 1000) / p.floor.floorMs)})`),
        rows('Worker CPU: user / system (kernel: sockets, SQLite file writes)', (p) => `${seconds(p.result.cpuMs - p.result.cpuSystemMs)} / ${seconds(p.result.cpuSystemMs)}`),
        rows('Worker event loop busy (`eventLoopUtilization`; CPU share for comparison)', (p) => `${percent(p.result.eventLoopUtilization, 1)} (${percent(p.result.cpuMs, p.result.wallMs)})`),
        rows('Time inside SQLite statements (synchronous: the event loop waits), statements', (p) =>
          `${seconds(p.result.sqlite.ms)} (${percent(p.result.sqlite.ms, p.result.wallMs)} of the run), ${count(p.result.sqlite.calls)}`,
        ),
        rows('Largest SQLite statements: calls, time', (p) =>
          p.result.sqlite.top.slice(0, LARGEST_SHOWN).map((t) => `\`${t.sql}\` ${count(t.calls)}×, ${seconds(t.ms)}`).join('<br>'),
        ),
        rows('CPU time of the fake providers (bench process) meanwhile', (p) => seconds(p.fakesCpuMs)),
        rows('Worker RSS: started / **peak** / peak above start', (p) => `${mib(p.idleBytes)} / **${mib(p.peakBytes)}** / ${mib(p.peakBytes - p.idleBytes)} MiB`),
        rows('Peak V8 heap in use (worker)', (p) => `${mib(p.result.peakHeapUsedBytes)} MiB`),
        rows('Log lines (warn or error)', (p) => `${count(p.result.logLines)} (${count(p.result.warnOrErrorLines)})`),
        rows(`Writing the audience (${count(plan.recipients)} users and push tokens, one transaction)`, (p) => seconds(p.seedMs)),
        rows('Load average (1 min) when each repeat started (the median run\'s in bold)', (p) =>
          p.repeats.map((r) => (r.loadBefore === p.loadBefore && r.wallMs === p.result.wallMs ? `**${r.loadBefore.toFixed(2)}**` : r.loadBefore.toFixed(2))).join(', '),
        ),
      ],
      m.phases.length,
    ),
    '',
    `Peak RSS: the highest of the worker's readings every ${plan.sampleEveryMs} ms and, on Linux, its VmHWM (reset when the fan-out started). The worker is a process of its own so that its memory is the fan-out's alone and the fake providers do not share its event loop (they run on the other core), started with the app's Node flags as the Functions host starts the app (\`${NODE_RUNTIME_ARGUMENTS}\`, \`shared/lifecycle/node-runtime-flags.ts\`). When the worker's CPU share is near 100%, it is bound by one core, not by the providers' latency: more batches at once would not bring the time nearer the floor.`,
    '',
    ...(m.adapters.length > 0
      ? [
          `### The ACS adapters alone`,
          '',
          `To tell the SDK adapters' cost from the fan-out's around them, a fresh worker sends ${count(plan.recipients)} messages through each adapter as \`createDeliveryProviders\` composes it (same fake, same ${plan.providerDelayMs} ms, ${inFlight} in flight, as the fan-out at most), with no ledger, spend guard or log line: each adapter's own ceiling on one core.`,
          '',
          table(
            [
              'Adapter alone',
              'Sends',
              'Floor (⌈sends ÷ in flight⌉ × latency)',
              'Time (min / median / max)',
              'Time ÷ floor (min / median / max)',
              'CPU (min / median / max; share of one core in the median run)',
              'Event loop busy (median run)',
              'CPU per send (min / median / max; of it system in the median run)',
              'Status requests (median run)',
              'Peak RSS (min / median / max)',
            ],
            m.adapters.map((a) => [
              ADAPTER_LABEL[a.channel],
              count(a.messages),
              seconds(a.floorMs),
              secondsSpread(figure(a, (r) => r.wallMs)),
              spreadText(ratios(a), times),
              `${secondsSpread(figure(a, (r) => r.cpuMs))} (${percent(a.result.cpuMs, a.result.wallMs)})`,
              percent(a.result.eventLoopUtilization, 1),
              `${spreadText(figure(a, (r) => r.cpuMs / a.messages), (value) => `${value.toFixed(2)} ms`)} (${perItem(a.result.cpuSystemMs, a.messages)})`,
              count(a.requests.emailStatus),
              mibSpread(figure(a, (r) => r.peakBytes)),
            ]),
            8,
          ),
          '',
        ]
      : []),
    ...(missed.length > 0
      ? [
          '### Where the goal is missed, and why',
          '',
          ...missed.map((p) => missedGoal(m, p)),
          '',
          ...appSideCosts(m),
          '',
        ]
      : []),
  ];
}

/** Push alone at several audience sizes: how the cost grows with the audience. */
export interface PushScaling {
  sizes: { recipients: number; phase: FanoutPhase }[];
}

const perRecipientMs = (p: FanoutPhase): Spread => figure(p, (r) => r.wallMs / p.result.recipients);

/** Time per recipient at the largest size ÷ at the one before it (100,000 against 10,000), per median. */
function scalingRatio(s: PushScaling): { from: number; to: number; ratio: number } | undefined {
  const [from, to] = s.sizes.slice(-2);
  if (!from || !to || s.sizes.length < 2) return undefined;
  return { from: from.recipients, to: to.recipients, ratio: perRecipientMs(to.phase).median / perRecipientMs(from.phase).median };
}

/**
 * The scaling goal, and push's bound of its floor at the largest size (the fan-out section judges
 * it at 10,000).
 */
export function pushScalingGoals(s: PushScaling): GoalRow[] {
  const scaled = scalingRatio(s);
  const largest = s.sizes.at(-1);
  return [
    ...(largest
      ? [
          {
            goal: `Push alone, ${count(largest.recipients)} recipients: ≤ ${PUSH_GOAL_RATIO}× (provider floor + ledger floor)`,
            figure: `${spreadText(ratios(largest.phase), times)} the floor of ${floorOf(largest.phase)} (time ${secondsSpread(figure(largest.phase, (r) => r.wallMs))}; worker CPU ${cpuPerRecipient(largest.phase)})`,
            verdict: verdictOf(pushMet(largest.phase)),
          },
        ]
      : []),
    ...(scaled ? [scalingGoal(s, scaled)] : []),
  ];
}

function scalingGoal(s: PushScaling, scaled: { from: number; to: number; ratio: number }): GoalRow {
  return {
    goal: `Push alone, time per recipient at ${count(scaled.to)} ≤ ${PUSH_SCALING_GOAL}× that at ${count(scaled.from)}`,
    figure: `${times(scaled.ratio)} (${s.sizes.map((size) => `${count(size.recipients)}: ${perRecipientMs(size.phase).median.toFixed(3)} ms`).join(', ')} a recipient, medians)`,
    verdict: verdictOf(scaled.ratio <= PUSH_SCALING_GOAL),
  };
}

export function renderPushScaling(s: PushScaling): string[] {
  const scaled = scalingRatio(s);
  return [
    `## Push alone at ${s.sizes.map((size) => count(size.recipients)).join(', ')} recipients`,
    '',
    'The push fan-out as above (a fresh database and worker process per run, the fakes answering after the same latency), at each audience size, repeats interleaved within each size; its floor is the provider floor plus the ledger floor measured beside each repeat.',
    '',
    table(
      ['Recipients', 'Time (min / median / max)', 'Floor: provider + ledger (median run)', 'Time ÷ floor (min / median / max)', `Goal: ≤ ${PUSH_GOAL_RATIO}× (median)`, 'Time per recipient (min / median / max)', 'Worker CPU per recipient (min / median / max)', 'Worker peak RSS (min / median / max)'],
      s.sizes.map(({ recipients, phase }) => [
        count(recipients),
        secondsSpread(figure(phase, (r) => r.wallMs)),
        `${seconds(phase.floor.floorMs)} + ${seconds(phase.ledgerFloor?.ms ?? 0)}`,
        spreadText(ratios(phase), times),
        recipients >= 10_000 ? (pushMet(phase) ? 'met' : '**not met**') : 'informational',
        spreadText(perRecipientMs(phase), (value) => `${value.toFixed(3)} ms`),
        cpuPerRecipientSpread(phase),
        mibSpread(figure(phase, (r) => r.peakBytes)),
      ]),
      7,
    ),
    '',
    ...(scaled ? [`Time per recipient at ${count(scaled.to)} ÷ at ${count(scaled.from)}: ${times(scaled.ratio)} (goal ≤ ${PUSH_SCALING_GOAL}×).`, ''] : []),
  ];
}
