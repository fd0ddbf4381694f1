import { describe, expect, it } from 'vitest';
import { CanaryTracker } from './canaries';

describe('CanaryTracker', () => {
  it('finds a PIN wherever it stands on its own, and not inside a random hex id', () => {
    const canaries = new CanaryTracker();
    canaries.add('000111', 'river.kid', 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJwYXJlbnQtMSJ9.c2lnbmF0dXJlLXZhbHVl');
    expect(canaries.findIn('{"traceId":"4bf92f3577b34da6a3ce9290000111ff"}')).toEqual([]);
    expect(canaries.findIn('{"requestId":"e1b2c3d4-0001-4000-8000-0a0000111bcd"}')).toEqual([]);
    expect(canaries.findIn('{"pin":"000111"}')).toEqual(['000111']);
    expect(canaries.findIn('wrong PIN 000111 for')).toEqual(['000111']);
    expect(canaries.findIn('{"user":"River.Kid"}')).toEqual(['river.kid']);
    expect(canaries.findIn('{"payload":"eyJzdWIiOiJwYXJlbnQtMSJ9"}')).toEqual(['eyJzdWIiOiJwYXJlbnQtMSJ9']);
  });
});
