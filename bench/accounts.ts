import type { BenchIdentityProvider } from './id-provider';
import { runLoad, type BenchClient } from './http-client';

/** A PIN that passes the credential rules (no run, no repeat, not common); it is only ever a bench value. */
export const CHILD_PIN = '480257';
/** Another valid-looking PIN, sent as the wrong one. */
export const WRONG_PIN = '692715';

export interface Adult {
  idToken: string;
  sessionToken: string;
}

/** Signs `count` adults in once, so later sign-ins find their Users rows (the steady state). */
export async function signInAdults(client: BenchClient, idp: BenchIdentityProvider, count: number): Promise<Adult[]> {
  const adults: Adult[] = [];
  for (let index = 0; index < count; index += 1) {
    const idToken = idp.idToken(`bench-adult-${index}`);
    const response = await client.send({ method: 'POST', path: '/api/v1/auth/session', body: { idToken } });
    if (response.status !== 200) throw new Error(`adult sign-in answered ${response.status}: ${response.body}`);
    adults.push({ idToken, sessionToken: (JSON.parse(response.body) as { token: string }).token });
  }
  return adults;
}

/** The username of the i-th bench child. */
export const childUsername = (index: number): string => `bench-kid-${index}`;

/** Creates `count` children of `parent`, all with `CHILD_PIN` (3 at a time: each costs an Argon2 hash). */
export async function createChildren(client: BenchClient, parent: Adult, count: number): Promise<void> {
  const result = await runLoad(client, { count, concurrency: 3, expectedStatus: 201 }, (index) => ({
    method: 'POST',
    path: '/api/v1/children',
    headers: { authorization: `Bearer ${parent.sessionToken}` },
    body: { username: childUsername(index), pin: CHILD_PIN, scopes: ['announcements'] },
  }));
  if (result.unexpected > 0) throw new Error(`${result.unexpected} of ${count} child accounts were not created`);
}
