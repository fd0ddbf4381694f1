import { cpuPerRecipient, cpuPerRecipientSpread, figure, floorOf, mibSpread, ratios, secondsSpread } from './fanout-report';
import type { GoalRow } from './goals';
import { count, spreadText, table, times } from './markdown';
import type { PushTelemetry } from './push-telemetry';
import { spread } from './stats';

/** The informational row of the goal summary: push as production runs it, with Application Insights. */
export function pushTelemetryGoals(t: PushTelemetry): GoalRow[] {
  const p = t.appInsights;
  return [
    {
      goal: `Fan-out, push alone, ${count(p.result.recipients)} recipients, Application Insights configured (production's telemetry; no figure set)`,
      figure: `${spreadText(ratios(p), times)} the floor of ${floorOf(p)} (time ${secondsSpread(figure(p, (r) => r.wallMs))}; worker CPU ${cpuPerRecipient(p)}, its telemetry thread included); ÷ the log-only run beside it ${spreadText(spread(t.pairRatios), times)}`,
      verdict: 'informational',
    },
  ];
}

/** The section of bench/results.md: both runs of each pair side by side, and the ratio of each pair. */
export function renderPushTelemetry(t: PushTelemetry): string[] {
  const rows = [
    { label: 'Telemetry to the log only (as the fan-out section)', p: t.logOnly },
    { label: 'Application Insights configured (its SDK in the telemetry worker thread)', p: t.appInsights },
  ];
  return [
    `## Push alone with Application Insights configured (${t.pairRatios.length} pairs)`,
    '',
    "The fan-out section's push run measures the app with telemetry to the log only: each `notification.delivery` event is a log line. Production configures Application Insights: the facade posts each turn's events to the telemetry worker thread (`shared/telemetry/worker-telemetry.ts`), whose SDK turns them into envelopes and exports them. Here the same push fan-out runs with `APPLICATIONINSIGHTS_CONNECTION_STRING` pointing at a local HTTPS stand-in for the ingestion endpoint (`test/telemetry/ingestion-capture.ts`, in the bench process beside the fake providers); each worker starts its run once the SDK has loaded (`telemetry ready`), since an instance that fans out has long been started. Each pair is a log-only run, then an Application Insights run, on fresh databases and workers. The worker's CPU is its process's: the telemetry thread's included.",
    '',
    table(
      ['Run', 'Time (min / median / max)', 'Floor: provider + ledger', 'Time ÷ floor (min / median / max)', 'Worker CPU per recipient (min / median / max)', 'Worker peak RSS (min / median / max)'],
      rows.map(({ label, p }) => [
        label,
        secondsSpread(figure(p, (r) => r.wallMs)),
        floorOf(p),
        spreadText(ratios(p), times),
        cpuPerRecipientSpread(p),
        mibSpread(figure(p, (r) => r.peakBytes)),
      ]),
      5,
    ),
    '',
    `Application Insights ÷ log only, time of each pair: ${spreadText(spread(t.pairRatios), times)}. The ingestion stand-in received ${count(t.envelopes)} envelopes during the Application Insights runs (the SDK exports in batches while a run goes on; what it still held when a worker exited was not sent).`,
    '',
  ];
}
