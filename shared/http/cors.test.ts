import { describe, expect, it } from 'vitest';
import { corsHeaders, isPreflight, preflightHeaders } from './cors';

describe('CORS', () => {
  it('adds nothing at all when no origin is allowed (the default)', () => {
    expect(corsHeaders('https://admin.example.org', [])).toEqual({});
    expect(preflightHeaders('https://admin.example.org', [], ['GET'])).toBeUndefined();
  });

  it('echoes a listed origin only, and varies on Origin once any is listed', () => {
    const allowed = ['https://admin.example.org'];
    expect(corsHeaders('https://admin.example.org', allowed)).toMatchObject({ 'Access-Control-Allow-Origin': 'https://admin.example.org', Vary: 'Origin' });
    expect(corsHeaders('https://admin.example.org.evil.test', allowed)).toEqual({ Vary: 'Origin' });
    expect(corsHeaders(null, allowed)).toEqual({ Vary: 'Origin' });
    expect(preflightHeaders('https://admin.example.org', allowed, ['GET', 'POST'])).toMatchObject({ 'Access-Control-Allow-Methods': 'GET, POST' });
  });

  it('knows a preflight by OPTIONS with Origin and Access-Control-Request-Method', () => {
    const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name] ?? null });
    expect(isPreflight('OPTIONS', headers({ origin: 'https://a.test', 'access-control-request-method': 'GET' }))).toBe(true);
    expect(isPreflight('OPTIONS', headers({ origin: 'https://a.test' }))).toBe(false);
    expect(isPreflight('GET', headers({ origin: 'https://a.test', 'access-control-request-method': 'GET' }))).toBe(false);
  });
});
