import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ARGON2ID_PARAMS,
  createSecretHasher,
  nativeArgon2,
  type Argon2Engine,
  type Argon2Params,
} from '../../../shared/ports/secret-hasher';
import { updateChild } from '../../../shared/family/update-child';
import type { User } from '../../../shared/users/user';
import { CHEAP_ARGON2, createFlowHarness, expectNoLeaks, PEPPER, type FlowHarness } from './flow-harness';

/**
 * Rehash on sign-in (contract section 6): a hash made with older Argon2 parameters is replaced by
 * one with the current parameters when the child next proves the secret, once. This file is about
 * the parameters, so the "current" hasher uses the production ones.
 */

let h: FlowHarness;
let parent: User;

beforeAll(async () => {
  // The harness's own hasher (cheap parameters) plays the previous release.
  h = await createFlowHarness();
  parent = await h.insertAdult();
});

afterAll(async () => {
  await h?.close();
});

const storedHash = (userId: string): string =>
  h.rows<{ secretHash: string }>('SELECT secretHash FROM ChildAccounts WHERE userId = @userId', { userId })[0]?.secretHash ?? '';

const phcPrefix = (params: Argon2Params): string => `$argon2id$v=19$m=${params.memoryCost},t=${params.timeCost},p=${params.parallelism}$`;

describe('rehash on sign-in', () => {
  it('replaces a hash made with old parameters on the next successful sign-in, and only then', async () => {
    const pin = '7391052';
    const child = await h.createChild(parent, 'canary-kid-rehash', pin);
    const oldHash = storedHash(child.id);
    expect(oldHash.startsWith(phcPrefix(CHEAP_ARGON2))).toBe(true);

    // The next release: same pepper, the production parameters.
    const current = createSecretHasher({ pepper: PEPPER, params: ARGON2ID_PARAMS });
    const upgraded = h.instance({ hasher: current });

    // A wrong PIN proves nothing: no rehash.
    const wrong = await h.signInChild('canary-kid-rehash', '8402163', { services: upgraded });
    expect(wrong.ok).toBe(false);
    expect(current.stats.hashes).toBe(0);
    expect(storedHash(child.id)).toBe(oldHash);

    const first = await h.signInChild('canary-kid-rehash', pin, { services: upgraded });
    expect(first.ok).toBe(true);
    expect(current.stats.hashes).toBe(1);
    const newHash = storedHash(child.id);
    h.canaries.add(oldHash, newHash);
    expect(newHash).not.toBe(oldHash);
    expect(newHash.startsWith(phcPrefix(ARGON2ID_PARAMS))).toBe(true);
    expect(await current.verify(newHash, pin)).toEqual({ valid: true, needsRehash: false });

    const verificationsBefore = current.stats.verifications;
    const second = await h.signInChild('canary-kid-rehash', pin, { services: upgraded });
    expect(second.ok).toBe(true);
    expect(current.stats.verifications - verificationsBefore).toBe(1);
    expect(current.stats.hashes).toBe(1);
    expect(storedHash(child.id)).toBe(newHash);
  });
});

describe('rehash of a hash made over the NFC form (before NFKC)', () => {
  it('signs in with the secret as first set, stores its NFKC hash, and from then on takes every compatible spelling', async () => {
    // Full-width letters and a ligature: NFC keeps them, NFKC makes them `fish-kangaroo-42`.
    const password = '\ufb01sh-\uff4b\uff41\uff4e\uff47\uff41\uff52\uff4f\uff4f-42';
    const ascii = 'fish-kangaroo-42';
    h.canaries.add(password, ascii);
    const child = await h.createChild(parent, 'canary-kid-nfkc', '5820371');
    // What the previous release stored for that password: Argon2id over its NFC form, same pepper.
    const legacy = await nativeArgon2.hash(password.normalize('NFC'), { ...CHEAP_ARGON2, type: 2, secret: Buffer.from(PEPPER) });
    h.canaries.add(legacy);
    const db = await h.services.database.get();
    await db.execute('UPDATE ChildAccounts SET secretHash = @hash WHERE userId = @id', { hash: legacy, id: child.id });

    // Before the first sign-in with the original spelling, the NFKC spelling does not match the old hash.
    expect((await h.signInChild('canary-kid-nfkc', ascii)).ok).toBe(false);
    expect(storedHash(child.id)).toBe(legacy);
    const first = await h.signInChild('canary-kid-nfkc', password);
    expect(first.ok).toBe(true);
    const rehashed = storedHash(child.id);
    h.canaries.add(rehashed);
    expect(rehashed).not.toBe(legacy);
    expect(await h.hasher.verify(rehashed, ascii)).toEqual({ valid: true, needsRehash: false });
    expect((await h.signInChild('canary-kid-nfkc', ascii)).ok).toBe(true);
    expect((await h.signInChild('canary-kid-nfkc', password)).ok).toBe(true);
    expect(storedHash(child.id)).toBe(rehashed);
  });
});

/** An engine that stops the next hash or verification until the test releases it. */
function gatedEngine() {
  let armed: { kind: 'hash' | 'verify'; entered: () => void; release: Promise<void> } | undefined;
  const arm = (kind: 'hash' | 'verify') => {
    let entered!: () => void;
    let release!: () => void;
    const enteredPromise = new Promise<void>((resolve) => (entered = resolve));
    const releasePromise = new Promise<void>((resolve) => (release = resolve));
    armed = { kind, entered, release: releasePromise };
    return { entered: enteredPromise, release };
  };
  const pass = async (kind: 'hash' | 'verify'): Promise<void> => {
    if (armed?.kind !== kind) return;
    const gate = armed;
    armed = undefined;
    gate.entered();
    await gate.release;
  };
  const engine: Argon2Engine = {
    hash: async (secret, options) => {
      await pass('hash');
      return nativeArgon2.hash(secret, options);
    },
    verify: async (digest, secret, options) => {
      await pass('verify');
      return nativeArgon2.verify(digest, secret, options);
    },
  };
  return { engine, arm };
}

describe('a new secret set while a sign-in with the old one is in flight', () => {
  const NEXT: Argon2Params = { memoryCost: 2048, timeCost: 1, parallelism: 1 };

  it('keeps the parent’s new hash: the rehash of the old secret does not overwrite it', async () => {
    const oldPin = '5820374';
    const newPin = '6931485';
    h.canaries.add(newPin);
    const child = await h.createChild(parent, 'canary-kid-race-a', oldPin);
    const gated = gatedEngine();
    const signingIn = h.instance({ hasher: createSecretHasher({ pepper: PEPPER, params: NEXT, engine: gated.engine }) });

    const rehash = gated.arm('hash');
    const attempt = h.signInChild('canary-kid-race-a', oldPin, { services: signingIn });
    await rehash.entered;
    const changed = await updateChild(parent, child.id, { secret: { kind: 'pin', value: newPin } }, h.services.childAccountPorts);
    expect(changed.ok).toBe(true);
    const parentsHash = storedHash(child.id);
    h.canaries.add(parentsHash);
    rehash.release();
    await attempt;

    expect(storedHash(child.id)).toBe(parentsHash);
    expect((await h.signInChild('canary-kid-race-a', newPin)).ok).toBe(true);
  });

  it('does not leave a usable session made with the old secret after the parent changed it', async () => {
    // Contract section 5: a secret change revokes all of the child's sessions. A sign-in whose old
    // PIN was verified just before the change, and whose session is written just after the
    // revocation, must not come out with a working session.
    const oldPin = '4719263';
    const newPin = '3608152';
    h.canaries.add(newPin);
    const child = await h.createChild(parent, 'canary-kid-race-b', oldPin);
    const gated = gatedEngine();
    const signingIn = h.instance({ hasher: createSecretHasher({ pepper: PEPPER, params: CHEAP_ARGON2, engine: gated.engine }) });

    const verification = gated.arm('verify');
    const attempt = h.signInChild('canary-kid-race-b', oldPin, { services: signingIn });
    await verification.entered;
    expect((await updateChild(parent, child.id, { secret: { kind: 'pin', value: newPin } }, h.services.childAccountPorts)).ok).toBe(true);
    verification.release();
    const result = await attempt;

    const usable = result.ok ? (await h.authenticate(result.started.token)).ok : false;
    expect({ signInOk: result.ok, sessionUsable: usable }).not.toEqual({ signInOk: true, sessionUsable: true });
    const openSessions = h.rows('SELECT id FROM Sessions WHERE userId = @id AND endedAt IS NULL', { id: child.id });
    expect(openSessions).toEqual([]);
  });
});

describe('leaks', () => {
  it('writes no PIN, username, hash, token or pepper to the log, the audit log or telemetry', () => {
    expectNoLeaks(h, 10);
  });
});
