import type { Attributes, Gauge, Histogram, Meter } from '@opentelemetry/api';
import type { TelemetryMetricName } from './event-catalogue';

export type MetricInstrumentKind = 'gauge' | 'histogram';

/**
 * The OpenTelemetry instrument of every catalogue metric. A sampled level (the approval queue's
 * depth) is a gauge: its last value is what counts. Adding a metric to the catalogue fails to
 * compile until it is given its kind here.
 */
export const METRIC_INSTRUMENTS: Readonly<Record<TelemetryMetricName, MetricInstrumentKind>> = {
  'approval.queue_depth': 'gauge',
};

/**
 * A metric name outside the catalogue (an untyped caller) becomes a histogram: like Application
 * Insights' `trackMetric`, it keeps count, sum, min and max of the values rather than one of them.
 */
const UNKNOWN_METRIC: MetricInstrumentKind = 'histogram';

/** Records values on one instrument per metric name. */
export interface MetricRecorder {
  record(name: string, value: number, attributes: Attributes): void;
}

/** A recorder whose instruments are created on the metric's first value. */
export function metricRecorder(meter: Meter): MetricRecorder {
  const instruments = new Map<string, Gauge | Histogram>();
  const instrumentOf = (name: string): Gauge | Histogram => {
    let instrument = instruments.get(name);
    if (!instrument) {
      const kind = Object.hasOwn(METRIC_INSTRUMENTS, name) ? METRIC_INSTRUMENTS[name as TelemetryMetricName] : UNKNOWN_METRIC;
      instrument = kind === 'gauge' ? meter.createGauge(name) : meter.createHistogram(name);
      instruments.set(name, instrument);
    }
    return instrument;
  };
  return {
    record(name, value, attributes) {
      instrumentOf(name).record(value, attributes);
    },
  };
}
