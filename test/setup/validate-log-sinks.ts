import { afterEach, expect } from 'vitest';
import { liveSinks } from '../helpers/log-sink';

/** Every line any test captured must be a schema-valid log line, whether or not the test looked at it. */
afterEach(() => {
  const invalid = [...liveSinks].flatMap((sink) => sink.invalidLines);
  liveSinks.clear();
  expect(invalid, 'log lines that break shared/logging/log-line.schema.json').toEqual([]);
});
