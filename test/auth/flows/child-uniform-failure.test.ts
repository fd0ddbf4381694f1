import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretHasher, nativeArgon2, type Argon2Engine } from '../../../shared/ports/secret-hasher';
import { createChild } from '../../../shared/family/create-child';
import { deleteChild, updateChild } from '../../../shared/family/update-child';
import type { User } from '../../../shared/users/user';
import {
  call,
  CHEAP_ARGON2,
  childSessionEndpoint,
  createFlowHarness,
  expectNoLeaks,
  jsonRequest,
  lockByFailures,
  PEPPER,
  type FlowHarness,
  type HttpAnswer,
} from './flow-harness';

/**
 * One answer for an unknown username, a wrong PIN and a locked account (contract sections 2, 4
 * and 6): compared as HTTP answers of the child sign-in endpoint, and each costing exactly one
 * Argon2 verification (a dummy one for an unknown username, made with the current parameters).
 */

let h: FlowHarness;
let parent: User;
/** Every digest the hasher verified against, in order. */
const verifiedDigests: string[] = [];

const watchedEngine: Argon2Engine = {
  hash: (secret, options) => nativeArgon2.hash(secret, options),
  verify: (digest, secret, options) => {
    verifiedDigests.push(digest);
    return nativeArgon2.verify(digest, secret, options);
  },
};

beforeAll(async () => {
  h = await createFlowHarness({ hasher: createSecretHasher({ pepper: PEPPER, params: CHEAP_ARGON2, engine: watchedEngine }) });
  parent = await h.insertAdult();
});

afterAll(async () => {
  await h?.close();
});

let addressCounter = 10;

/** POSTs to the child sign-in endpoint from a fresh address and counts the Argon2 work it caused. */
async function post(body: Record<string, string>) {
  h.canaries.add(...Object.values(body));
  const endpoint = childSessionEndpoint(h.services);
  const before = { ...h.hasher.stats, digests: verifiedDigests.length };
  addressCounter += 1;
  const answer = await call(
    endpoint,
    jsonRequest('POST', 'http://localhost:7071/api/v1/auth/child-session', body, { 'x-forwarded-for': `198.51.100.${addressCounter}` }),
    'auth-child-session-create',
  );
  if (typeof answer.body?.token === 'string') h.canaries.add(answer.body.token, answer.body.token.split('.')[1] ?? '');
  return {
    answer,
    verifications: h.hasher.stats.verifications - before.verifications,
    dummyVerifications: h.hasher.stats.dummyVerifications - before.dummyVerifications,
    hashes: h.hasher.stats.hashes - before.hashes,
    digests: verifiedDigests.slice(before.digests),
  };
}

/** The answer without what must differ between any two requests (request id, trace id). */
function comparable(answer: HttpAnswer) {
  const { 'X-Request-Id': requestId, ...headers } = answer.headers;
  expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
  const { traceId, ...body } = answer.body ?? {};
  expect(traceId).toMatch(/^[0-9a-f]{32}$/);
  return { status: answer.status, headers, body };
}

/** `m=…,t=…,p=…` of a PHC string. */
function paramsOf(digest: string | undefined): string | undefined {
  return digest ? /\$(m=\d+,t=\d+,p=\d+)\$/.exec(digest)?.[1] : undefined;
}

describe('unknown username, wrong PIN, locked account', () => {
  it('get identical answers apart from traceId, each after exactly one Argon2 verification', async () => {
    const knownPin = '6150384';
    await h.createChild(parent, 'canary-kid-ada', knownPin);
    const lockedPin = '3827461';
    await h.createChild(parent, 'canary-kid-locked', lockedPin);
    h.canaries.add('8402617');
    await lockByFailures(h, 'canary-kid-locked', '8402617');
    // Nothing warmed up: the unknown username below is the hasher's first dummy verification.
    expect(h.hasher.stats.dummyVerifications).toBe(0);
    const accountParams = paramsOf(h.rows<{ secretHash: string }>('SELECT secretHash FROM ChildAccounts')[0]?.secretHash);
    expect(accountParams).toBe('m=1024,t=1,p=1');

    const mark = h.auditMark();
    const unknown = await post({ username: 'canary-no-such-kid', pin: '7291046' });
    const wrong = await post({ username: 'canary-kid-ada', pin: '7291046' });
    const locked = await post({ username: 'canary-kid-locked', pin: lockedPin });

    expect(unknown.answer.status).toBe(401);
    const reference = comparable(unknown.answer);
    expect(reference).toMatchObject({
      status: 401,
      headers: { 'Content-Type': 'application/problem+json', 'Cache-Control': 'no-store' },
      body: { type: 'about:blank', title: 'Invalid credentials', status: 401, code: 'invalid_credentials' },
    });
    // Nothing that would tell the cases apart or hint at a throttle.
    expect(Object.keys(reference.headers)).not.toContain('Retry-After');
    expect(JSON.stringify(reference.body)).not.toMatch(/lock|exist|unknown|wrong pin/i);
    expect(comparable(wrong.answer)).toEqual(comparable(unknown.answer));
    expect(comparable(locked.answer)).toEqual(comparable(unknown.answer));

    // Exactly one verification each; the dummy one only for the unknown username.
    expect([unknown.verifications, wrong.verifications, locked.verifications]).toEqual([1, 1, 1]);
    expect([unknown.dummyVerifications, wrong.dummyVerifications, locked.dummyVerifications]).toEqual([1, 0, 0]);
    // The first unknown username computes no hash of its own (a dummy hash made then would make its
    // answer slower than a wrong PIN's).
    expect([unknown.hashes, wrong.hashes, locked.hashes]).toEqual([0, 0, 0]);
    // The dummy hash is made with the current parameters, like the account hashes.
    expect(unknown.digests.map(paramsOf)).toEqual([accountParams]);
    expect(wrong.digests.map(paramsOf)).toEqual([accountParams]);
    expect(locked.digests.map(paramsOf)).toEqual([accountParams]);

    // The audit log knows which case it was; the client does not.
    expect(h.auditAfter(mark).map((row) => [row.eventType, row.reason])).toEqual([
      ['authn_login_fail', 'user_not_found'],
      ['authn_login_fail', 'bad_credentials'],
      ['authn_login_fail', 'locked'],
    ]);
  });

  it('answers a disabled child 401 for a wrong PIN and 403 account_disabled only after the PIN was proven', async () => {
    const pin = '5062718';
    const child = await h.createChild(parent, 'canary-kid-off', pin);
    await updateChild(parent, child.id, { status: 'disabled' }, h.services.childAccountPorts);

    const unknown = await post({ username: 'canary-nobody-here', pin: '9183720' });
    const wrong = await post({ username: 'canary-kid-off', pin: '9183720' });
    expect(comparable(wrong.answer)).toEqual(comparable(unknown.answer));
    expect(wrong.verifications).toBe(1);

    const mark = h.auditMark();
    const right = await post({ username: 'canary-kid-off', pin });
    expect(right.verifications).toBe(1);
    expect(right.answer.status).toBe(403);
    expect(right.answer.body).toMatchObject({ code: 'account_disabled', status: 403 });
    expect(h.auditAfter(mark).map((row) => [row.eventType, row.reason, row.subjectUserId])).toEqual([
      ['authn_login_fail', 'disabled', child.id],
    ]);
    expect(h.rows('SELECT id FROM Sessions WHERE userId = @id', { id: child.id })).toEqual([]);
  });

  it('answers a deleted child like an unknown username, with a dummy verification', async () => {
    const pin = '2930475';
    const child = await h.createChild(parent, 'canary-kid-gone', pin);
    expect(await deleteChild(parent, child.id, h.services.childAccountPorts)).toEqual({ ok: true });
    const unknown = await post({ username: 'canary-never-was', pin });
    const deleted = await post({ username: 'canary-kid-gone', pin });
    expect(comparable(deleted.answer)).toEqual(comparable(unknown.answer));
    expect([deleted.verifications, deleted.dummyVerifications]).toEqual([1, 1]);
  });

  it('answers a spelling of a name that is not its stored form like an unknown username, even with the right PIN', async () => {
    const pin = '4071859';
    await h.createChild(parent, 'canary-kid-wide', pin);
    const unknown = await post({ username: 'canary-nobody-wide', pin });
    const mark = h.auditMark();
    // Three spellings: they share one failure count, and a fourth would be throttled.
    for (const spelling of ['canary-kid-wide ', 'ｃａｎａｒｙ-ｋｉｄ-ｗｉｄｅ', 'CANARY-KID-WIDE\u200b']) {
      const attempt = await post({ username: JSON.parse(`"${spelling}"`) as string, pin });
      expect(comparable(attempt.answer), spelling).toEqual(comparable(unknown.answer));
      expect([attempt.verifications, attempt.dummyVerifications], spelling).toEqual([1, 1]);
    }
    expect(h.auditAfter(mark).map((row) => [row.reason, row.subjectUserId])).toEqual(Array(3).fill(['user_not_found', null]));
    // The name itself, in any ASCII case, is the account (once the 1 s wait after 3 failures is over).
    h.clock.advance(1000);
    expect((await post({ username: 'Canary-Kid-Wide', pin })).answer.status).toBe(200);
  });

  it('treats a password account the same way', async () => {
    const password = 'Canary-Lantern-Harbour-42';
    h.canaries.add('canary-kid-pass', password);
    const created = await createChild(
      parent,
      { username: 'canary-kid-pass', secret: { kind: 'password', value: password }, scopes: ['groups'] },
      h.services.childAccountPorts,
    );
    expect(created.ok).toBe(true);
    const unknown = await post({ username: 'canary-nobody-pass', password: 'Canary-Wrong-Guess-17' });
    const wrong = await post({ username: 'canary-kid-pass', password: 'Canary-Wrong-Guess-17' });
    expect(comparable(wrong.answer)).toEqual(comparable(unknown.answer));
    expect([unknown.verifications, wrong.verifications]).toEqual([1, 1]);
    const right = await post({ username: 'canary-kid-pass', password });
    expect(right.answer.status).toBe(200);
    expect(right.answer.body).toMatchObject({ user: { accountType: 'child', scopes: ['groups'] } });
  });

  it('gives a session for the right PIN (the comparisons above are not all refusals by accident)', async () => {
    const ok = await post({ username: 'canary-kid-ada', pin: '6150384' });
    expect(ok.answer.status).toBe(200);
    expect(ok.answer.body).toMatchObject({ tokenType: 'Bearer', user: { accountType: 'child', scopes: ['announcements'] } });
    expect(ok.verifications).toBe(1);
  });
});

describe('leaks', () => {
  it('writes no PIN, username, hash, token or pepper to the log, the audit log or telemetry', () => {
    h.canaries.add(...verifiedDigests);
    expectNoLeaks(h, 20);
  });
});
