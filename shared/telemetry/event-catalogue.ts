/**
 * Every custom event and metric the app sends (contract section 8), with the properties each
 * carries. The telemetry port only accepts these names and properties, and the alert rules under
 * infra/ are checked against this catalogue, so a dashboard query never reads a name nobody sends.
 */
export const TELEMETRY_EVENTS = {
  'auth.success': ['accountType'],
  'auth.failure': ['reason', 'accountType'],
  'idp.unavailable': ['status', 'staleKeysAvailable'],
  'notification.fanout': ['announcementId', 'recipients', 'channels'],
  'notification.delivery': ['channel', 'result'],
  // A batch re-driven from the ledger after its holder died (shared/notifications/jobs/redrive-stalled-batches.ts).
  'notification.redrive': ['announcementId', 'rows'],
  // A queue message re-driven from its lease row: its holder died (`running`) or nobody took it (`queued`)
  // (shared/notifications/jobs/redrive-stalled-messages.ts).
  'notification.redrive_message': ['kind', 'state'],
  // Sends a batch left with an unknown outcome (an SMS first sent before a crash, past ACS's window).
  'notification.outcome_unknown': ['announcementId', 'channel', 'count'],
  // Sends a batch found marked first-sent with no answer and sent again inside ACS's window (same request).
  'notification.send_resumed': ['announcementId', 'channel', 'count'],
  'approval.queue_depth': ['depth', 'oldestQueuedAgeHours'],
  // The daily cost check (shared/cost/record-daily-cost.ts); the cost alerts read the two percentages.
  'cost.daily': [
    'day',
    'status',
    'cost',
    'currency',
    'trailingAverage',
    'trailingDays',
    'percentOfTrailingAverage',
    'expectedDaily',
    'percentOfExpected',
  ],
  // The ingress's answers of the last 5 whole minutes (shared/ingress/); api-error-rate-critical reads them.
  'ingress.requests': ['windowStart', 'windowEnd', 'requests', 'serverErrors', 'minutesWithData'],
} as const satisfies Record<string, readonly string[]>;

export type TelemetryEventName = keyof typeof TELEMETRY_EVENTS;

/** The properties of event `N`: exactly the catalogue's names, each a short label or a number. */
export type TelemetryEventProperties<N extends TelemetryEventName> = {
  readonly [P in (typeof TELEMETRY_EVENTS)[N][number]]: string | number | boolean;
};

/** Metrics (gauges and counters) the app sends, with their dimensions. */
export const TELEMETRY_METRICS = {
  'approval.queue_depth': [],
} as const satisfies Record<string, readonly string[]>;

export type TelemetryMetricName = keyof typeof TELEMETRY_METRICS;
