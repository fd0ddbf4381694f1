import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { PushMessage } from '../../ports/delivery';
import { createExpoPushProvider, isExpoPushToken } from './expo-push-provider';

/** A `fetch` that records each request and answers `reply`. */
function recordingFetch(reply: () => Response) {
  const requests: { url: string; headers: Headers; body: Buffer }[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    requests.push({ url: String(input), headers: new Headers(init?.headers), body: Buffer.from(init?.body as string | Uint8Array) });
    return reply();
  };
  return { fetchFn, requests };
}

const message = (index: number): PushMessage => ({
  to: `ExponentPushToken[unit-${index}]`,
  title: 'Title',
  body: 'Body',
  data: { announcementId: 'ann-1' },
});

describe('Expo push adapter (unit)', () => {
  it('recognises Expo push tokens', () => {
    expect(isExpoPushToken('ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]')).toBe(true);
    expect(isExpoPushToken('ExpoPushToken[abc]')).toBe(true);
    for (const bad of ['', 'ExponentPushToken[]', 'ExponentPushToken[a b]', 'fcm:abc', 'ExponentPushToken[abc]x']) {
      expect(isExpoPushToken(bad)).toBe(false);
    }
  });

  it('posts to {base}/send with the bearer token, and gzips a large body', async () => {
    const { fetchFn, requests } = recordingFetch(
      () => new Response(JSON.stringify({ data: Array.from({ length: 20 }, (_, i) => ({ status: 'ok', id: `t${i}` })) }), { status: 200 }),
    );
    const provider = createExpoPushProvider({ baseUrl: 'https://push.example.test/v2/push/', accessToken: 'tok', fetch: fetchFn });
    await provider.send(Array.from({ length: 20 }, (_, i) => message(i)));
    const [request] = requests;
    expect(request?.url).toBe('https://push.example.test/v2/push/send');
    expect(request?.headers.get('authorization')).toBe('Bearer tok');
    expect(request?.headers.get('content-encoding')).toBe('gzip');
    expect(JSON.parse(gunzipSync(request?.body ?? Buffer.alloc(0)).toString('utf8'))).toHaveLength(20);
  });

  it('sends a small body plain and no Authorization without a token', async () => {
    const { fetchFn, requests } = recordingFetch(() => new Response(JSON.stringify({ data: [{ status: 'ok', id: 't' }] }), { status: 200 }));
    await createExpoPushProvider({ baseUrl: 'https://push.example.test', fetch: fetchFn }).send([message(1)]);
    expect(requests[0]?.headers.get('authorization')).toBeNull();
    expect(requests[0]?.headers.get('content-encoding')).toBeNull();
    expect(JSON.parse(requests[0]?.body.toString('utf8') ?? '')).toEqual([
      { to: 'ExponentPushToken[unit-1]', title: 'Title', body: 'Body', data: { announcementId: 'ann-1' } },
    ]);
  });

  it('answers a permanent bad_response when a 200 cannot be matched to the messages (it may have been sent)', async () => {
    const badResponses = [
      () => new Response('<html>oops</html>', { status: 200 }),
      () => new Response(JSON.stringify({ data: [{ status: 'ok', id: 't' }] }), { status: 200 }),
      () => new Response(JSON.stringify({ data: [{ status: 'weird' }, { status: 'ok', id: 'x' }] }), { status: 200 }),
    ];
    const expected = [
      [{ result: 'provider_error', code: 'bad_response', transient: false }, { result: 'provider_error', code: 'bad_response', transient: false }],
      [{ result: 'provider_error', code: 'bad_response', transient: false }, { result: 'provider_error', code: 'bad_response', transient: false }],
      [{ result: 'provider_error', code: 'bad_response', transient: false }, { result: 'success', providerMessageId: 'x' }],
    ];
    for (const [index, reply] of badResponses.entries()) {
      const provider = createExpoPushProvider({ baseUrl: 'https://push.example.test', fetch: recordingFetch(reply).fetchFn });
      expect(await provider.send([message(1), message(2)])).toEqual(expected[index]);
    }
  });

  it('answers an error ticket without details as a permanent unknown_error', async () => {
    const { fetchFn } = recordingFetch(() => new Response(JSON.stringify({ data: [{ status: 'error', message: 'nope' }] }), { status: 200 }));
    const provider = createExpoPushProvider({ baseUrl: 'https://push.example.test', fetch: fetchFn });
    expect(await provider.send([message(1)])).toEqual([{ result: 'provider_error', code: 'unknown_error', transient: false }]);
  });
});
