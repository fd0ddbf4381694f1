import { HttpRequest } from '@azure/functions';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, readPage } from './read-page';

const cursor = { createdAt: '2026-11-21T05:36:37.123Z', id: '3f0c1a9e-2b4d-4c8e-9a7b-1d2e3f4a5b6c' };
const request = (query: string) => new HttpRequest({ method: 'GET', url: `http://localhost/api/v1/children${query}` });

describe('list cursors', () => {
  it('round-trips a cursor the API gave out', () => {
    expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor);
  });

  it.each([
    ['not base64 JSON', 'bogus'],
    ['strings that are no time and id', Buffer.from(JSON.stringify(['x', 'y'])).toString('base64url')],
    ['a time in another format', Buffer.from(JSON.stringify(['2026-11-21 05:36:37', cursor.id])).toString('base64url')],
    ['a non-UUID id', Buffer.from(JSON.stringify([cursor.createdAt, "x' OR 1=1"])).toString('base64url')],
    ['three parts', Buffer.from(JSON.stringify([cursor.createdAt, cursor.id, 1])).toString('base64url')],
    ['year 0000, before datetime2 begins', Buffer.from(JSON.stringify(['0000-01-01T00:00:00.000Z', cursor.id])).toString('base64url')],
    ['an expanded year past 9999', Buffer.from(JSON.stringify(['+010000-01-01T00:00:00.000Z', cursor.id])).toString('base64url')],
    ['a negative year', Buffer.from(JSON.stringify(['-000001-01-01T00:00:00.000Z', cursor.id])).toString('base64url')],
    ['an id in upper case', Buffer.from(JSON.stringify([cursor.createdAt, cursor.id.toUpperCase()])).toString('base64url')],
  ])('refuses %s', (_name, raw) => {
    expect(decodeCursor(raw)).toBeUndefined();
    const page = readPage(request(`?cursor=${raw}`));
    expect(page.ok ? undefined : page.problem.code).toBe('invalid_request');
  });

  it('accepts the first and last instants both engines hold', () => {
    for (const createdAt of ['0001-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z']) {
      expect(decodeCursor(encodeCursor({ createdAt, id: cursor.id }))).toEqual({ createdAt, id: cursor.id });
    }
  });

  it('bounds the page size', () => {
    expect(readPage(request('')).ok && readPage(request('')) ).toMatchObject({ value: { limit: 50 } });
    for (const limit of ['0', '201', '1.5', 'x']) expect(readPage(request(`?limit=${limit}`)).ok).toBe(false);
    expect(readPage(request('?limit=200'))).toMatchObject({ ok: true, value: { limit: 200 } });
  });
});
