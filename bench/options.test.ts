import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseOptions, SECTIONS } from './options';

describe('parseOptions', () => {
  it('selects every section and writes the results when no section is named', () => {
    expect(parseOptions([])).toEqual({ sections: [...SECTIONS], partial: false });
  });

  it('keeps the bench order of the sections --only names, and is partial', () => {
    const options = parseOptions(['--only', 'fanout,cold-start,http']);
    expect(options.sections).toEqual(['http', 'cold-start', 'fanout']);
    expect(options.partial).toBe(true);
  });

  it('keeps --only fanout with --phases and --cpu-prof working', () => {
    expect(parseOptions(['--only', 'fanout', '--phases', 'sms,email-adapter', '--cpu-prof', 'prof', '--fanout-repeats', '2'])).toEqual({
      sections: ['fanout'],
      partial: true,
      phases: ['sms', 'email-adapter'],
      cpuProfileDir: path.resolve('prof'),
      fanoutRepeats: 2,
    });
  });

  it('refuses unknown sections, runs and flags, missing values, and fan-out flags without the fan-out', () => {
    expect(() => parseOptions(['--only', 'htpp'])).toThrow(/unknown htpp/);
    expect(() => parseOptions(['--only', 'fanout', '--phases', 'fax'])).toThrow(/unknown fax/);
    expect(() => parseOptions(['--fast', 'yes'])).toThrow(/unknown option/);
    expect(() => parseOptions(['--only'])).toThrow(/needs a value/);
    expect(() => parseOptions(['--only', 'http', '--phases', 'sms'])).toThrow(/select it/);
    expect(() => parseOptions(['--fanout-repeats', '0'])).toThrow(/positive integer/);
  });
});
