import { startIngestionCapture } from '../test/telemetry/ingestion-capture';
import { measureFanout, phaseOfRuns, type FanoutPhase, type FanoutPhaseRun, type FanoutPlan } from './fanout';

/** The push fan-out with telemetry to the log only and with Application Insights configured, paired by repeat. */
export interface PushTelemetry {
  /** Telemetry to the log only (no connection string), as the fan-out section runs. */
  logOnly: FanoutPhase;
  /** Application Insights configured, exporting to the local ingestion stand-in. */
  appInsights: FanoutPhase;
  /** Application Insights ÷ log only, each repeat against the log-only run just before it. */
  pairRatios: number[];
  /** Envelopes the ingestion stand-in received during the Application Insights runs. */
  envelopes: number;
}

/**
 * Push alone (the fan-out section's run) as production runs it: Application Insights configured,
 * its SDK in the telemetry worker thread (loaded before the run starts), exporting over HTTPS to a
 * local stand-in for the ingestion endpoint (`test/telemetry/ingestion-capture.ts`, in this
 * process). Each repeat runs a log-only push fan-out, then one with Application Insights, so a
 * change in the machine's load hits both of a pair.
 * @throws when the stand-in received nothing: the runs would not have measured the exporter.
 */
export async function measurePushTelemetry(plan: Omit<FanoutPlan, 'phases' | 'telemetry'>, note: (message: string) => void): Promise<PushTelemetry> {
  const repeats = plan.repeats ?? 1;
  const ingestion = await startIngestionCapture();
  const logOnly: FanoutPhaseRun[] = [];
  const appInsights: FanoutPhaseRun[] = [];
  const base = { ...plan, repeats: 1, phases: ['push'] as const };
  const telemetry = { connectionString: ingestion.connectionString, caCertPath: ingestion.certPath };
  try {
    for (let round = 1; round <= repeats; round += 1) {
      logOnly.push(onlyPhase(await measureFanout(base, note)));
      appInsights.push(onlyPhase(await measureFanout({ ...base, telemetry }, (message) => note(`${message} (Application Insights)`))));
    }
    if (ingestion.envelopes.length === 0) throw new Error('the Application Insights runs sent nothing to the ingestion stand-in');
    return {
      logOnly: phaseOfRuns(logOnly),
      appInsights: phaseOfRuns(appInsights),
      pairRatios: appInsights.map((run, index) => run.result.wallMs / (logOnly[index]?.result.wallMs ?? Number.NaN)),
      envelopes: ingestion.envelopes.length,
    };
  } finally {
    await ingestion.close();
  }
}

function onlyPhase(measured: { phases: FanoutPhase[] }): FanoutPhaseRun {
  const [phase] = measured.phases;
  if (!phase) throw new Error('unreachable: the push run was selected');
  return phase;
}
