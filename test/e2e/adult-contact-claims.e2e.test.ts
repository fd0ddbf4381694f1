import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthTestHost, type AuthTestHost } from '../helpers/auth-test-host';
import { CanaryTracker } from '../helpers/canaries';
import { startLocalHost, type LocalHost } from '../helpers/local-host';
import { auditRows, readRows } from '../helpers/sqlite-reader';

/**
 * Contact data is never lost by a sign-in (regression): a token without an `email` claim once
 * erased the stored address, so `/me` lost it and the user dropped out of e-mail notifications.
 * A sign-in now changes a contact value only when the provider vouches for a different one.
 * Over real HTTP through the local host, with tokens from a JWKS server on 127.0.0.1.
 */

let env: AuthTestHost;
const canaries = new CanaryTracker();

const FIRST_EMAIL = 'canary.first.mail@example.org';
const OTHER_EMAIL = 'canary.other.mail@example.org';
const NEW_EMAIL = 'canary.new.mail@example.org';
const FIRST_PHONE = '+15550187766';
const NEW_PHONE = '+15550187799';

beforeAll(async () => {
  canaries.add(FIRST_EMAIL, OTHER_EMAIL, NEW_EMAIL, FIRST_PHONE, NEW_PHONE);
  env = await startAuthTestHost('contact-claims', canaries);
});

afterAll(async () => {
  await env?.stop();
});

/** Signs `sub` in with `claims` on `host` and answers what `/me` then says of the contact data. */
async function signInAndReadContact(
  sub: string,
  claims: Record<string, unknown>,
  host: LocalHost = env.host,
): Promise<{ email?: unknown; phone?: unknown }> {
  const idToken = env.idToken(sub, claims);
  canaries.add(idToken);
  const signIn = await fetch(`${host.baseUrl}/api/v1/auth/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ idToken }),
  });
  expect(signIn.status).toBe(200);
  const { token } = (await signIn.json()) as { token: string };
  canaries.add(token);
  const me = await fetch(`${host.baseUrl}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } });
  expect(me.status).toBe(200);
  const profile = (await me.json()) as { email?: unknown; phone?: unknown };
  return { email: profile.email, phone: profile.phone };
}

describe('a sign-in and the stored contact data', () => {
  const sub = 'contact-keeper';

  it('stores the verified e-mail and phone of the first sign-in', async () => {
    const contact = await signInAndReadContact(sub, {
      email: FIRST_EMAIL,
      email_verified: true,
      phone_number: FIRST_PHONE,
      phone_number_verified: true,
    });
    expect(contact).toEqual({ email: FIRST_EMAIL, phone: FIRST_PHONE });
  });

  it('keeps both when a later token has no e-mail or phone claim at all', async () => {
    expect(await signInAndReadContact(sub, {})).toEqual({ email: FIRST_EMAIL, phone: FIRST_PHONE });
    // Stored, not only answered: the fan-out reads the Users row.
    const [row] = readRows<{ email: string | null; phone: string | null }>(
      env.databaseFile,
      "SELECT email, phone FROM Users WHERE subject = 'contact-keeper'",
    );
    expect(row).toEqual({ email: FIRST_EMAIL, phone: FIRST_PHONE });
  });

  it('keeps the e-mail when the token carries a different address the provider did not verify', async () => {
    expect(await signInAndReadContact(sub, { email: OTHER_EMAIL, email_verified: false })).toEqual({ email: FIRST_EMAIL, phone: FIRST_PHONE });
    expect(await signInAndReadContact(sub, { email: OTHER_EMAIL })).toEqual({ email: FIRST_EMAIL, phone: FIRST_PHONE });
    expect(await signInAndReadContact(sub, { email: OTHER_EMAIL, email_verified: 'no' })).toEqual({ email: FIRST_EMAIL, phone: FIRST_PHONE });
    expect(await signInAndReadContact(sub, { phone_number: NEW_PHONE })).toEqual({ email: FIRST_EMAIL, phone: FIRST_PHONE });
  });

  it('keeps the e-mail when the verified claim is not an address', async () => {
    expect(await signInAndReadContact(sub, { email: 'not an address', email_verified: true })).toEqual({ email: FIRST_EMAIL, phone: FIRST_PHONE });
  });

  it('takes a different verified e-mail, leaving the phone as it was', async () => {
    expect(await signInAndReadContact(sub, { email: NEW_EMAIL.toUpperCase(), email_verified: true })).toEqual({
      email: NEW_EMAIL,
      phone: FIRST_PHONE,
    });
  });

  it('takes a different verified phone number, leaving the e-mail as it was', async () => {
    expect(await signInAndReadContact(sub, { phone_number: NEW_PHONE, phone_number_verified: true })).toEqual({
      email: NEW_EMAIL,
      phone: NEW_PHONE,
    });
  });
});

describe('an issuer that verifies every address it sends (IDP_EMAIL_VERIFIED_BY_ISSUER, Entra External ID)', () => {
  let issuerHost: LocalHost;

  beforeAll(async () => {
    issuerHost = await startLocalHost({
      ...env.hostEnv,
      SQLITE_PATH: path.join(env.workDir, 'issuer-verified.sqlite'),
      IDP_EMAIL_VERIFIED_BY_ISSUER: 'true',
    });
  });

  afterAll(async () => {
    await issuerHost?.stop();
    expect(issuerHost.invalidLines).toEqual([]);
    expect(canaries.findIn(issuerHost.stdout.join('\n'))).toEqual([]);
  });

  it('stores an e-mail without email_verified, but never one the token says is unverified', async () => {
    expect(await signInAndReadContact('external-id-user', { email: FIRST_EMAIL }, issuerHost)).toEqual({ email: FIRST_EMAIL, phone: undefined });
    expect(await signInAndReadContact('external-id-user', { email: OTHER_EMAIL, email_verified: false }, issuerHost)).toEqual({
      email: FIRST_EMAIL,
      phone: undefined,
    });
    expect(await signInAndReadContact('external-id-user', {}, issuerHost)).toEqual({ email: FIRST_EMAIL, phone: undefined });
    expect(await signInAndReadContact('external-id-user', { email: NEW_EMAIL }, issuerHost)).toEqual({ email: NEW_EMAIL, phone: undefined });
  });
});

describe('what the app wrote', () => {
  it('holds no e-mail address, phone number or token in stdout or the audit log', () => {
    expect(env.host.invalidLines).toEqual([]);
    expect(canaries.findIn(env.host.stdout.join('\n'))).toEqual([]);
    expect(canaries.findIn(JSON.stringify(auditRows(env.databaseFile)))).toEqual([]);
  });
});
