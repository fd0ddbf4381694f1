import { describe, expect, it } from 'vitest';
import { createAcsEmailProvider } from './acs-email-provider';

const CONNECTION = 'endpoint=https://res.communication.azure.com/;accesskey=cHc=';

function scriptedFetch(replies: (() => Response)[]) {
  const requests: { method: string; url: string; headers: Headers }[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    requests.push({ method: init?.method ?? 'GET', url: String(input), headers: new Headers(init?.headers) });
    const reply = replies.shift();
    if (!reply) throw new Error('unexpected request');
    return reply();
  };
  return { fetchFn, requests };
}

const provider = (fetchFn: typeof fetch) =>
  createAcsEmailProvider({ connectionString: CONNECTION, senderAddress: 'noreply@example.test', fetch: fetchFn, sleep: async () => undefined });

describe('ACS e-mail adapter (unit)', () => {
  it('polls the operation under its own endpoint, taking the id from Operation-Location when the body has none', async () => {
    const { fetchFn, requests } = scriptedFetch([
      () =>
        new Response('', {
          status: 202,
          headers: { 'operation-location': 'https://elsewhere.example.test//emails/operations/op-7?api-version=2023-03-31' },
        }),
      () => new Response(JSON.stringify({ id: 'op-7', status: 'Succeeded' }), { status: 200 }),
    ]);
    expect(await provider(fetchFn).send({ to: 'a@example.test', subject: 's', text: 't' })).toEqual({
      result: 'success',
      providerMessageId: 'op-7',
    });
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST https://res.communication.azure.com/emails:send?api-version=2023-03-31',
      'GET https://res.communication.azure.com/emails/operations/op-7?api-version=2023-03-31',
    ]);
    expect(requests.every((r) => r.headers.get('authorization')?.startsWith('HMAC-SHA256 SignedHeaders=x-ms-date;host;x-ms-content-sha256&Signature='))).toBe(true);
  });

  it('answers a permanent bad_response for a 202 it cannot follow, and does not poll', async () => {
    const { fetchFn, requests } = scriptedFetch([() => new Response('accepted', { status: 202 })]);
    expect(await provider(fetchFn).send({ to: 'a@example.test', subject: 's', text: 't' })).toEqual({
      result: 'provider_error',
      code: 'bad_response',
      transient: false,
    });
    expect(requests).toHaveLength(1);
  });

  it('maps a Canceled operation to a permanent error and a Failed one without a code to "Failed"', async () => {
    for (const [end, code] of [[{ status: 'Canceled' }, 'Canceled'], [{ status: 'Failed' }, 'Failed']] as const) {
      const { fetchFn } = scriptedFetch([() => new Response(JSON.stringify({ id: 'op', ...end }), { status: 202 })]);
      expect(await provider(fetchFn).send({ to: 'a@example.test', subject: 's', text: 't' })).toEqual({
        result: 'provider_error',
        code,
        transient: false,
      });
    }
  });
});
