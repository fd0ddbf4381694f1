import * as argon2 from 'argon2';
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { DependencyUnavailableError } from '../errors/dependency-unavailable';
import {
  ARGON2ID,
  ARGON2ID_PARAMS,
  createSecretHasher,
  dummyArgon2idHash,
  HashingOverloadedError,
  hashingConcurrency,
  nativeArgon2,
  type Argon2Engine,
  type Argon2Params,
} from './secret-hasher';

const PEPPER = 'test-pepper-0123456789abcdefghijklmnop';
/** For tests that are not about the parameters: a few milliseconds per hash instead of ~80. */
const CHEAP: Argon2Params = { memoryCost: 1024, timeCost: 1, parallelism: 1 };

/** The real argon2, counting calls and how many run at once. */
function watchedArgon2() {
  const seen = { hashes: 0, verifications: 0, running: 0, maxRunning: 0, hashOptions: [] as argon2.HashOptions[] };
  const track = async <T>(work: () => Promise<T>): Promise<T> => {
    seen.running += 1;
    seen.maxRunning = Math.max(seen.maxRunning, seen.running);
    try {
      return await work();
    } finally {
      seen.running -= 1;
    }
  };
  const engine: Argon2Engine = {
    hash: (secret, options) => {
      seen.hashes += 1;
      seen.hashOptions.push(options);
      return track(() => nativeArgon2.hash(secret, options));
    },
    verify: (digest, secret, options) => {
      seen.verifications += 1;
      return track(() => nativeArgon2.verify(digest, secret, options));
    },
  };
  return { engine, seen };
}

/** An engine whose calls finish only when the test says so. */
function manualArgon2() {
  const pending: Array<{ kind: 'hash' | 'verify'; finish: () => void }> = [];
  const engine: Argon2Engine = {
    hash: () => new Promise((resolve) => pending.push({ kind: 'hash', finish: () => resolve('$argon2id$v=19$m=1,t=1,p=1$c2FsdA$aGFzaA') })),
    verify: () => new Promise((resolve) => pending.push({ kind: 'verify', finish: () => resolve(false) })),
  };
  return { engine, pending };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('createSecretHasher with the production parameters', () => {
  it('makes Argon2id m=19456,t=2,p=1 hashes that verify the right secret only', async () => {
    const hasher = createSecretHasher({ pepper: PEPPER });
    const digest = await hasher.hash('284915');
    expect(digest.startsWith('$argon2id$v=19$m=19456,t=2,p=1$')).toBe(true);
    expect(digest).not.toContain('284915');
    expect(await hasher.verify(digest, '284915')).toEqual({ valid: true, needsRehash: false });
    expect(await hasher.verify(digest, '284916')).toEqual({ valid: false, needsRehash: false });
  });
});

describe('createSecretHasher', () => {
  it("names Argon2id by argon2's own number", () => {
    expect(ARGON2ID).toBe(argon2.argon2id);
  });

  it('salts every hash', async () => {
    const hasher = createSecretHasher({ pepper: PEPPER, params: CHEAP });
    expect(await hasher.hash('violet-kangaroo')).not.toBe(await hasher.hash('violet-kangaroo'));
  });

  it('mixes in the pepper: another pepper cannot verify the hash', async () => {
    const hasher = createSecretHasher({ pepper: PEPPER, params: CHEAP });
    const otherPepper = createSecretHasher({ pepper: `${PEPPER}-other`, params: CHEAP });
    const digest = await hasher.hash('violet-kangaroo');
    expect((await hasher.verify(digest, 'violet-kangaroo')).valid).toBe(true);
    expect((await otherPepper.verify(digest, 'violet-kangaroo')).valid).toBe(false);
    // And without any pepper at all (argon2 used directly) it does not verify either.
    expect(await argon2.verify(digest, 'violet-kangaroo')).toBe(false);
  });

  it('asks for a rehash when the stored hash has other parameters or another variant, and only when valid', async () => {
    const old = createSecretHasher({ pepper: PEPPER, params: CHEAP });
    const current = createSecretHasher({ pepper: PEPPER, params: { ...CHEAP, timeCost: 2 } });
    const oldDigest = await old.hash('violet-kangaroo');
    expect(await current.verify(oldDigest, 'violet-kangaroo')).toEqual({ valid: true, needsRehash: true });
    expect(await current.verify(oldDigest, 'wrong-kangaroo')).toEqual({ valid: false, needsRehash: false });
    expect(await old.verify(oldDigest, 'violet-kangaroo')).toEqual({ valid: true, needsRehash: false });
    const argon2i = await argon2.hash('violet-kangaroo', { ...CHEAP, type: argon2.argon2i, secret: Buffer.from(PEPPER) });
    expect(await old.verify(argon2i, 'violet-kangaroo')).toEqual({ valid: true, needsRehash: true });
  });

  it('writes the parameters in the reference order m,t,p and still reads node-argon2 order', async () => {
    const hasher = createSecretHasher({ pepper: PEPPER, params: CHEAP });
    expect(await hasher.hash('violet-kangaroo')).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    const nodeOrder = await argon2.hash('violet-kangaroo', { ...CHEAP, type: argon2.argon2id, secret: Buffer.from(PEPPER) });
    expect(nodeOrder).toMatch(/m=1024,p=1,t=1/);
    expect(await hasher.verify(nodeOrder, 'violet-kangaroo')).toEqual({ valid: true, needsRehash: false });
  });

  it('hashes the NFKC form, so composed and decomposed accents, full-width letters and digits and ligatures are the same password', async () => {
    const hasher = createSecretHasher({ pepper: PEPPER, params: CHEAP });
    const digest = await hasher.hash('caf\u00e9-kangaroo');
    expect((await hasher.verify(digest, 'cafe\u0301-kangaroo')).valid).toBe(true);
    const compat = await hasher.hash('\ufb01sh-\uff4b\uff41\uff4e\uff47\uff41\uff52\uff4f\uff4f-\uff14\uff12');
    expect(await hasher.verify(compat, 'fish-kangaroo-42')).toEqual({ valid: true, needsRehash: false });
    expect((await hasher.verify(await hasher.hash('731905'), '\uff17\uff13\uff11\uff19\uff10\uff15')).valid).toBe(true);
    expect((await hasher.verify(compat, 'fish-kangaroo-43')).valid).toBe(false);
  });

  it('still verifies a hash made over the NFC form (before NFKC), asks for its rehash, and the rehash is NFKC', async () => {
    const { engine, seen } = watchedArgon2();
    const hasher = createSecretHasher({ pepper: PEPPER, params: CHEAP, engine });
    const secret = '\ufb01sh-\uff4b\uff41\uff4e\uff47\uff41\uff52\uff4f\uff4f';
    // What the previous release stored: Argon2id over the NFC form, with the pepper.
    const legacy = await argon2.hash(secret.normalize('NFC'), { ...CHEAP, type: argon2.argon2id, secret: Buffer.from(PEPPER) });
    expect(await hasher.verify(legacy, secret)).toEqual({ valid: true, needsRehash: true });
    expect(seen.verifications).toBe(2);
    // The NFKC spelling was never hashed, and a wrong secret is still wrong.
    expect(await hasher.verify(legacy, 'fish-kangaroo')).toEqual({ valid: false, needsRehash: false });
    expect(await hasher.verify(legacy, '\ufb01sh-\uff4b\uff41\uff4e\uff47\uff41\uff52\uff4f')).toEqual({ valid: false, needsRehash: false });
    const rehashed = await hasher.hash(secret);
    expect(await hasher.verify(rehashed, secret)).toEqual({ valid: true, needsRehash: false });
    expect(await hasher.verify(rehashed, 'fish-kangaroo')).toEqual({ valid: true, needsRehash: false });
    // An ASCII secret has one form: one verification, right or wrong.
    const before = seen.verifications;
    const ascii = await hasher.hash('violet-kangaroo');
    await hasher.verify(ascii, 'violet-kangaroo');
    await hasher.verify(ascii, 'violet-kangarooo');
    expect(seen.verifications - before).toBe(2);
  });

  it('rejects a stored value that is not an Argon2 hash (corrupt data is a bug, not a wrong PIN)', async () => {
    const hasher = createSecretHasher({ pepper: PEPPER, params: CHEAP });
    await expect(hasher.verify('not-a-hash', '284915')).rejects.toThrow();
  });

  it('refuses an empty pepper, a concurrency below 1 and a thread pool below 1', () => {
    expect(() => createSecretHasher({ pepper: '' })).toThrow(/pepper/);
    expect(() => createSecretHasher({ pepper: PEPPER, maxConcurrent: 0 })).toThrow(RangeError);
    expect(() => createSecretHasher({ pepper: PEPPER, maxConcurrent: 1.5 })).toThrow(RangeError);
    expect(() => createSecretHasher({ pepper: PEPPER, threadPoolSize: 0 })).toThrow(RangeError);
  });
});

describe('hashingConcurrency', () => {
  it('is the CPUs, at most two, by default', () => {
    expect(hashingConcurrency({ cpus: 1 })).toBe(1);
    expect(hashingConcurrency({ cpus: 2 })).toBe(2);
    expect(hashingConcurrency({ cpus: 64 })).toBe(2);
    expect(hashingConcurrency()).toBe(Math.min(2, availableParallelism()));
  });

  it('never exceeds the libuv thread pool, whatever is asked for', () => {
    for (const threadPoolSize of [1, 2, 3, 4, 8]) {
      for (const maxConcurrent of [undefined, 1, 2, 3, 4, 16]) {
        for (const cpus of [1, 2, 4, 64]) {
          const limit = hashingConcurrency({ maxConcurrent, threadPoolSize, cpus });
          expect(limit).toBeLessThanOrEqual(threadPoolSize);
          expect(limit).toBe(Math.min(maxConcurrent ?? Math.min(2, cpus), threadPoolSize));
        }
      }
    }
  });

  it('takes libuv\'s own four threads when the pool size is not given', () => {
    expect(hashingConcurrency({ maxConcurrent: 16 })).toBe(4);
  });
});

describe('the concurrency bound', () => {
  it('is capped at the thread pool: requests beyond it wait for a running one to finish', async () => {
    const { engine, pending } = manualArgon2();
    const hasher = createSecretHasher({ pepper: PEPPER, maxConcurrent: 5, threadPoolSize: 2, engine });
    expect(hasher.stats.limit).toBe(2);
    const all = Array.from({ length: 6 }, () => hasher.verify('$argon2id$v=19$m=1,t=1,p=1$c2FsdA$aGFzaA', 'x'));
    await settle();
    expect(pending).toHaveLength(2);
    expect(hasher.stats).toMatchObject({ inFlight: 2, queued: 4 });
    for (let index = 0; index < 6; index += 1) {
      pending[index]?.finish();
      await settle();
      expect(hasher.stats.inFlight).toBeLessThanOrEqual(2);
    }
    await Promise.all(all);
    expect(hasher.stats).toMatchObject({ inFlight: 0, queued: 0, maxInFlight: 2, verifications: 6 });
  });

  it('starts at most maxConcurrent computations and queues the rest in arrival order', async () => {
    const { engine, pending } = manualArgon2();
    const hasher = createSecretHasher({ pepper: PEPPER, maxConcurrent: 3, engine });
    const done: number[] = [];
    const all = Array.from({ length: 10 }, (_, index) =>
      (index % 2 === 0 ? hasher.hash('x') : hasher.verify('$argon2id$v=19$m=1,t=1,p=1$c2FsdA$aGFzaA', 'x')).then(() => {
        done.push(index);
      }),
    );
    await settle();
    expect(pending).toHaveLength(3);
    expect(hasher.stats).toMatchObject({ inFlight: 3, queued: 7 });
    pending[1]?.finish();
    await settle();
    expect(done).toEqual([1]);
    expect(pending).toHaveLength(4);
    expect(hasher.stats).toMatchObject({ inFlight: 3, queued: 6 });
    // Each finished computation lets exactly one queued request start, never more.
    let finished = 1;
    for (const index of [0, 2, 3, 4, 5, 6, 7, 8, 9]) {
      pending[index]?.finish();
      finished += 1;
      await settle();
      expect(pending).toHaveLength(Math.min(10, 3 + finished));
      expect(hasher.stats.inFlight).toBeLessThanOrEqual(3);
    }
    await Promise.all(all);
    // Started in arrival order: the requests alternate hash, verify.
    expect(pending.map((call) => call.kind)).toEqual(Array.from({ length: 10 }, (_, index) => (index % 2 === 0 ? 'hash' : 'verify')));
    expect(hasher.stats).toMatchObject({ inFlight: 0, queued: 0, maxInFlight: 3, hashes: 5, verifications: 5 });
  });

  it('holds for the real argon2 under a burst', async () => {
    const { engine, seen } = watchedArgon2();
    const hasher = createSecretHasher({ pepper: PEPPER, maxConcurrent: 2, params: CHEAP, engine });
    const digest = await hasher.hash('violet-kangaroo');
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, index) => hasher.verify(digest, index === 5 ? 'violet-kangaroo' : `guess-${index}`)),
    );
    expect(results.filter((result) => result.valid)).toHaveLength(1);
    expect(seen.verifications).toBe(12);
    expect(seen.maxRunning).toBe(2);
    expect(hasher.stats.maxInFlight).toBe(2);
  });
});

describe('the waiting line', () => {
  const DIGEST = '$argon2id$v=19$m=1,t=1,p=1$c2FsdA$aGFzaA';

  it('serves clients in turn: one behind a flood of 50 from another address waits one turn, not 50', async () => {
    const { engine, pending } = manualArgon2();
    const hasher = createSecretHasher({ pepper: PEPPER, maxConcurrent: 1, maxQueued: 100, engine });
    const order: string[] = [];
    const flood = Array.from({ length: 50 }, (_, index) =>
      hasher.verify(DIGEST, `junk-${index}`, { client: '203.0.113.66' }).then(() => order.push(`junk-${index}`)),
    );
    const child = hasher.verify(DIGEST, '284915', { client: '198.51.100.7' }).then(() => order.push('child'));
    await settle();
    expect(hasher.stats).toMatchObject({ inFlight: 1, queued: 50 });
    for (let index = 0; index < 51; index += 1) {
      pending[index]?.finish();
      await settle();
    }
    await Promise.all([...flood, child]);
    // junk-0 was running; the flood's next one had its turn first; then the child's.
    expect(order.slice(0, 3)).toEqual(['junk-0', 'junk-1', 'child']);
  });

  it('refuses work past maxQueued with HashingOverloadedError (a 503 with Retry-After), never running it', async () => {
    const { engine, pending } = manualArgon2();
    const hasher = createSecretHasher({ pepper: PEPPER, maxConcurrent: 1, maxQueued: 2, maxWaitMs: 4000, engine });
    const running = hasher.verify(DIGEST, 'a', { client: '203.0.113.66' });
    const waiting = [hasher.verify(DIGEST, 'b', { client: '203.0.113.66' }), hasher.verify(DIGEST, 'c', { client: '203.0.113.66' })];
    const refused = hasher.verify(DIGEST, 'd', { client: '203.0.113.66' });
    await expect(refused).rejects.toBeInstanceOf(HashingOverloadedError);
    const error = await refused.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect(error).toMatchObject({ dependency: 'hashing', retryAfterSeconds: 4 });
    // Another address still gets in: the flood's newest place is given up for it.
    const other = hasher.verify(DIGEST, 'e', { client: '198.51.100.7' });
    await expect(waiting[1]).rejects.toBeInstanceOf(HashingOverloadedError);
    expect(hasher.stats).toMatchObject({ queued: 2, refused: 2, verifications: 1 });
    for (let index = 0; index < 3; index += 1) {
      pending[index]?.finish();
      await settle();
    }
    await Promise.all([running, waiting[0], other]);
    expect(hasher.stats).toMatchObject({ verifications: 3, inFlight: 0, queued: 0 });
  });
});

describe('verifyDummy', () => {
  it('costs exactly one real verification each time, with the pepper, against the dummy hash of the current parameters', async () => {
    const { engine, seen } = watchedArgon2();
    const verifyOptions: argon2.VerifyOptions[] = [];
    const hasher = createSecretHasher({
      pepper: PEPPER,
      params: CHEAP,
      engine: { ...engine, verify: (digest, secret, options) => (verifyOptions.push(options), engine.verify(digest, secret, options)) },
    });
    await Promise.all([hasher.verifyDummy('284915'), hasher.verifyDummy('violet-kangaroo')]);
    await hasher.verifyDummy('284915');
    expect(seen.hashes).toBe(0);
    expect(seen.verifications).toBe(3);
    expect(verifyOptions).toEqual(Array(3).fill({ secret: Buffer.from(PEPPER) }));
    expect(hasher.stats).toMatchObject({ hashes: 0, verifications: 3, dummyVerifications: 3 });

    const before = hasher.stats.verifications;
    const digest = await hasher.hash('violet-kangaroo');
    await hasher.verify(digest, 'violet-kangaroo');
    expect(hasher.stats.verifications - before).toBe(1);
  });

  it('costs what a wrong secret costs a real account when the NFKC and NFC forms differ: two verifications', async () => {
    const hasher = createSecretHasher({ pepper: PEPPER, params: CHEAP });
    const secret = '\uff17\uff13\uff11\uff19\uff10\uff15';
    const digest = await hasher.hash('284915');
    let before = hasher.stats.verifications;
    expect((await hasher.verify(digest, secret)).valid).toBe(false);
    const real = hasher.stats.verifications - before;
    before = hasher.stats.verifications;
    await hasher.verifyDummy(secret);
    expect(hasher.stats.verifications - before).toBe(real);
    expect(real).toBe(2);
  });

  it('verifies the first unknown secret against a shipped dummy hash of its parameters, computing no hash', async () => {
    const { engine, seen } = watchedArgon2();
    const digests: string[] = [];
    const watched: Argon2Engine = {
      hash: engine.hash,
      verify: (digest, secret, options) => {
        digests.push(digest);
        return engine.verify(digest, secret, options);
      },
    };
    const hasher = createSecretHasher({ pepper: PEPPER, params: CHEAP, engine: watched });
    await hasher.verifyDummy('284915');
    expect(seen).toMatchObject({ hashes: 0, verifications: 1 });
    expect(hasher.stats).toMatchObject({ hashes: 0, verifications: 1, dummyVerifications: 1 });
    expect(digests).toEqual([dummyArgon2idHash(CHEAP)]);
    // A stored hash of the same parameters has the same shape: Argon2id v=19, 16-byte salt, 32-byte digest.
    const stored = await hasher.hash('284915');
    const shape = (digest: string) => {
      const [, variant, version, parameters, salt = '', hash = ''] = digest.split('$');
      return [variant, version, parameters, Buffer.from(salt, 'base64').length, Buffer.from(hash, 'base64').length].join(' ');
    };
    expect(shape(dummyArgon2idHash(CHEAP))).toBe(shape(stored));
    expect(shape(stored)).toBe('argon2id v=19 m=1024,t=1,p=1 16 32');
  });

  it('ships a dummy hash of the production parameters that argon2 reads and that no secret matches', async () => {
    const dummy = dummyArgon2idHash(ARGON2ID_PARAMS);
    expect(dummy).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(argon2.needsRehash(dummy, { ...ARGON2ID_PARAMS, version: 0x13 })).toBe(false);
    for (const secret of ['', '284915', 'dummy secret that no account holds']) {
      expect(await argon2.verify(dummy, secret, { secret: Buffer.from(PEPPER) })).toBe(false);
    }
  });
});
