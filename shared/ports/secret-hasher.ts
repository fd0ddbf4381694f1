import { declaredDefault } from '../settings/setting-declarations';
import type * as argon2 from 'argon2';
import { availableParallelism } from 'node:os';
import { FairQueue, QueueRefusal } from '../concurrency/fair-queue';
import { DependencyUnavailableError } from '../errors/dependency-unavailable';

/**
 * Hashing and verifying child PINs and passwords (contract section 6): Argon2id with OWASP's
 * parameters and the deployment's pepper as Argon2's `secret` input, so a stolen database alone
 * does not allow offline guessing of six-digit PINs.
 *
 * Secrets are hashed in Unicode NFKC (NIST SP 800-63B §5.1.1.2), so that every way a keyboard can
 * type a character (full-width `ａ`, the ligature `ﬁ`, a composed or decomposed accent) is one
 * password. Hashes made before (over the NFC form) still verify: when the NFKC form of a secret
 * differs from its NFC form and does not match, the NFC form is tried, and a match asks for a
 * rehash, which the sign-in stores in NFKC. Lone surrogates never get here: the request is refused
 * (`loneSurrogateErrors`), since UTF-8 would turn each into U+FFFD and make them one password.
 */

/** The form a secret is hashed in. */
export function hashedForm(secret: string): string {
  return secret.normalize('NFKC');
}

/** The form hashes were made in before NFKC: still accepted, then replaced. */
function legacyForm(secret: string): string {
  return secret.normalize('NFC');
}

export interface Argon2Params {
  /** KiB of memory per hash. */
  memoryCost: number;
  /** Passes over that memory. */
  timeCost: number;
  /** Lanes. */
  parallelism: number;
}

/** OWASP's Argon2id choice: m=19456 KiB (19 MiB), t=2, p=1. */
export const ARGON2ID_PARAMS: Readonly<Argon2Params> = Object.freeze({ memoryCost: 19456, timeCost: 2, parallelism: 1 });

/** The two calls into argon2 the hasher makes; tests pass a wrapped pair to watch them. */
export interface Argon2Engine {
  hash(secret: string, options: argon2.HashOptions & { raw?: false }): Promise<string>;
  verify(digest: string, secret: string, options: argon2.VerifyOptions): Promise<boolean>;
}

type Argon2Module = typeof argon2;

/** `argon2.argon2id`: libargon2's number for the variant, known without loading the package. */
export const ARGON2ID: typeof argon2.argon2id = 2;

let argon2Module: Promise<Argon2Module> | undefined;

/**
 * The argon2 package, loaded on first use: a native binding and its helpers (~15 ms and 3 MiB)
 * that start-up and every function that never hashes do without. A failed load is tried again.
 */
function loadArgon2(): Promise<Argon2Module> {
  argon2Module ??= import('argon2').catch((error: unknown) => {
    argon2Module = undefined;
    throw error;
  });
  return argon2Module;
}

/** The real argon2 binding. */
export const nativeArgon2: Argon2Engine = {
  hash: async (secret, options) => (await loadArgon2()).hash(secret, options),
  verify: async (digest, secret, options) => (await loadArgon2()).verify(digest, secret, options),
};

/** libuv's own thread pool size when `UV_THREADPOOL_SIZE` is unset (that setting's declared default). */
export const DEFAULT_THREAD_POOL_SIZE = declaredDefault('UV_THREADPOOL_SIZE');

/**
 * Argon2 computations at once by default: each holds its 19 MiB while it runs, and two keep a burst
 * of sign-ins within its memory budget (60 MiB above idle for 100 at once).
 */
const DEFAULT_MAX_CONCURRENT = 2;

/**
 * How many Argon2 computations a hasher runs at once: `maxConcurrent` (default: the CPUs, at most
 * two), never more than the libuv pool has threads. Argon2 runs on that pool, so more could not
 * run anyway, and a queue inside libuv would hold up the file, DNS and crypto work that shares it.
 * Throws a RangeError for a value that is not a whole number at least 1 (a configuration bug).
 */
export function hashingConcurrency(options: { maxConcurrent?: number; threadPoolSize?: number; cpus?: number } = {}): number {
  const threadPoolSize = options.threadPoolSize ?? DEFAULT_THREAD_POOL_SIZE;
  for (const [name, value] of Object.entries({ maxConcurrent: options.maxConcurrent, threadPoolSize, cpus: options.cpus })) {
    if (value !== undefined && (!Number.isInteger(value) || value < 1)) throw new RangeError(`${name} must be a whole number ≥ 1`);
  }
  const wanted = options.maxConcurrent ?? Math.min(DEFAULT_MAX_CONCURRENT, options.cpus ?? availableParallelism());
  return Math.min(wanted, threadPoolSize);
}

export interface SecretHasherOptions {
  /** `config.hashingSecret`, the pepper. Changing it invalidates every stored hash. */
  pepper: string;
  /**
   * Argon2 computations running at once in this instance; the rest wait in a bounded line, served
   * fairly across clients (`FairQueue`). Default: the number of
   * CPUs, at most 2; never more than `threadPoolSize` (`hashingConcurrency`). Argon2 is CPU-bound:
   * more at once than cores adds no throughput, only 19 MiB each.
   */
  maxConcurrent?: number;
  /**
   * The threads of libuv's pool (`config.threadPoolSize`, from `UV_THREADPOOL_SIZE`), which Argon2,
   * file I/O, `dns.lookup` and async crypto share. Default: `DEFAULT_THREAD_POOL_SIZE`, libuv's own. Every pool thread that
   * has run Argon2 keeps its 19 MiB in its malloc arena afterwards, so the pool's size, not this
   * limit, bounds what a burst of sign-ins leaves behind: the deployment sets `UV_THREADPOOL_SIZE`
   * to the limit (docs/configuration.md, `UV_THREADPOOL_SIZE`).
   */
  threadPoolSize?: number;
  /**
   * Computations waiting for a turn at most (`config.hashQueue.maxQueued`, default
   * `DEFAULT_HASH_QUEUE.maxQueued`); past it, work is refused with `HashingOverloadedError`.
   */
  maxQueued?: number;
  /** The longest a computation waits for its turn, in ms (`config.hashQueue.maxWaitMs`); then it is refused. */
  maxWaitMs?: number;
  /** Default `ARGON2ID_PARAMS`; tests that are not about the parameters pass cheaper ones. */
  params?: Argon2Params;
  /** Default `nativeArgon2`. */
  engine?: Argon2Engine;
}

/** Counters for tests and diagnostics; they hold no secrets. */
export interface SecretHasherStats {
  /** Argon2 hash computations started (the dummy hash is shipped, never computed). */
  readonly hashes: number;
  /** Argon2 verifications started, dummy verifications included. */
  readonly verifications: number;
  /** Dummy verifications started (a subset of `verifications`). */
  readonly dummyVerifications: number;
  /** Computations running now. */
  readonly inFlight: number;
  /** The most computations ever running at once. */
  readonly maxInFlight: number;
  /** Computations allowed at once (`hashingConcurrency`). */
  readonly limit: number;
  /** Computations waiting for a slot now. */
  readonly queued: number;
  /** Computations refused (line full, or waited too long) since the hasher was made. */
  readonly refused: number;
}

/**
 * Whose work a computation is: the waiting line serves clients in turn, so one
 * client's flood of sign-ins cannot make another's wait behind all of it.
 */
export interface HashWork {
  /** The client's address bucket (`clientAddressBucket`); work without one shares a line. */
  client?: string;
}

/**
 * The waiting line in front of Argon2 is full, or the work waited `maxWaitMs`: the computation was
 * not run and nothing was recorded. Answer 503 `service_unavailable` with `Retry-After`
 * (a `DependencyUnavailableError`, so the HTTP pipeline does so wherever it is not handled).
 */
export class HashingOverloadedError extends DependencyUnavailableError {
  constructor(readonly refusal: QueueRefusal) {
    super('hashing', { cause: refusal });
  }

  /** Whole seconds to put in `Retry-After`. */
  get retryAfterSeconds(): number {
    return this.refusal.retryAfterSeconds;
  }
}

/** The waiting line's defaults: those declared for `HASH_QUEUE_MAX` and `HASH_QUEUE_MAX_WAIT_MS` (why, there). */
export const DEFAULT_HASH_QUEUE = Object.freeze({ maxQueued: declaredDefault('HASH_QUEUE_MAX'), maxWaitMs: declaredDefault('HASH_QUEUE_MAX_WAIT_MS') });

export interface VerifyResult {
  valid: boolean;
  /**
   * Only ever true when `valid`: the stored hash was made with other parameters, or over the
   * secret's NFC form (before NFKC); store `hash(secret)` anew.
   */
  needsRehash: boolean;
}

export interface SecretHasher {
  /**
   * A PHC string such as `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>` with a fresh random salt.
   * Every method rejects with `HashingOverloadedError` when its work is refused a turn.
   */
  hash(secret: string, work?: HashWork): Promise<string>;
  /**
   * Checks `secret` against a stored hash: one Argon2 verification, two when the secret's NFKC and
   * NFC forms differ and the first does not match. Rejects for a hash that is not a valid Argon2
   * PHC string (corrupt data).
   */
  verify(storedHash: string, secret: string, work?: HashWork): Promise<VerifyResult>;
  /**
   * Spends what a failed `verify` of this secret spends (one Argon2 verification, two when its NFKC
   * and NFC forms differ), against a dummy hash, and learns nothing. Call it when
   * the username is unknown (or the account cannot sign in) so that path costs what a real
   * verification costs: response times must not reveal which usernames exist.
   */
  verifyDummy(secret: string, work?: HashWork): Promise<void>;
  readonly stats: SecretHasherStats;
}

/**
 * The salt and digest of the dummy hash: fixed bytes, not the hash of anything. A verification
 * costs what the PHC string's parameters say whatever its salt and digest hold (the same memory,
 * passes and lanes, then a comparison of 32 bytes), so a wrong secret against a real account and
 * any secret against this string do the same work; no secret gives these 32 bytes (a 2^-256
 * chance), so nothing is ever accepted. Shipped rather than computed: a dummy hash made at start
 * would hold up the app's start hook (the host waits for it), and one made on the first unknown
 * username would make that answer slower than a wrong PIN's and tell that the name does not exist.
 * The lengths are node-argon2's defaults, those of every stored hash (16-byte salt, 32-byte digest).
 */
const DUMMY_SALT = Buffer.alloc(16, 0x5a).toString('base64').replace(/=+$/, '');
const DUMMY_DIGEST = Buffer.alloc(32, 0xa5).toString('base64').replace(/=+$/, '');

/**
 * The dummy hash for `params`: an Argon2id (v=19) PHC string with the parameters of the hashes the
 * hasher makes, so that verifying against it costs what verifying against a stored hash costs.
 */
export function dummyArgon2idHash(params: Readonly<Argon2Params>): string {
  return `$argon2id$v=19$m=${params.memoryCost},t=${params.timeCost},p=${params.parallelism}$${DUMMY_SALT}$${DUMMY_DIGEST}`;
}

/** node-argon2 writes the parameters as m,p,t; the reference encoding (RFC 9106, libargon2) is m,t,p. */
const NODE_ARGON2_PARAMETER_ORDER = /^(\$argon2id\$v=\d+\$)m=(\d+),p=(\d+),t=(\d+)\$/;

/**
 * Creates a hasher. Throws for an empty pepper or a bad `maxConcurrent` or `threadPoolSize`
 * (configuration bugs). The argon2 package is loaded by the first computation, not here.
 * @param options see `SecretHasherOptions`.
 */
export function createSecretHasher(options: SecretHasherOptions): SecretHasher {
  if (options.pepper.length === 0) throw new Error('The child secret pepper must not be empty');
  const pepper = Buffer.from(options.pepper, 'utf8');
  const params = { ...(options.params ?? ARGON2ID_PARAMS) };
  const engine = options.engine ?? nativeArgon2;
  const concurrency = hashingConcurrency({ maxConcurrent: options.maxConcurrent, threadPoolSize: options.threadPoolSize });
  const limit = new FairQueue({
    limit: concurrency,
    maxQueued: options.maxQueued ?? DEFAULT_HASH_QUEUE.maxQueued,
    maxWaitMs: options.maxWaitMs ?? DEFAULT_HASH_QUEUE.maxWaitMs,
  });
  const counts = { hashes: 0, verifications: 0, dummyVerifications: 0, maxInFlight: 0, refused: 0 };
  const dummyHash = dummyArgon2idHash(params);

  const limited = async <T>(work: HashWork | undefined, compute: () => Promise<T>): Promise<T> => {
    try {
      return await limit.run(work?.client ?? '', () => {
        counts.maxInFlight = Math.max(counts.maxInFlight, limit.active);
        return compute();
      });
    } catch (error) {
      if (!(error instanceof QueueRefusal)) throw error;
      counts.refused += 1;
      throw new HashingOverloadedError(error);
    }
  };

  const hash = (secret: string, work?: HashWork): Promise<string> =>
    limited(work, async () => {
      counts.hashes += 1;
      const digest = await engine.hash(hashedForm(secret), {
        type: ARGON2ID,
        version: 0x13,
        memoryCost: params.memoryCost,
        timeCost: params.timeCost,
        parallelism: params.parallelism,
        secret: pepper,
      });
      // Other Argon2 libraries (libargon2, libsodium, PHP) parse only the m,t,p order; node-argon2 reads both.
      return digest.replace(NODE_ARGON2_PARAMETER_ORDER, '$1m=$2,t=$4,p=$3$');
    });

  /** `normalized` is already in the form to check (`hashedForm` or `legacyForm`). */
  const verifyOnce = (storedHash: string, normalized: string, work: HashWork | undefined): Promise<boolean> =>
    limited(work, async () => {
      counts.verifications += 1;
      return engine.verify(storedHash, normalized, { secret: pepper });
    });

  /** The secret's hashed form, then its legacy form when that differs: 'current', 'legacy' or false. */
  const matchForms = async (storedHash: string, secret: string, work: HashWork | undefined): Promise<'current' | 'legacy' | false> => {
    const current = hashedForm(secret);
    if (await verifyOnce(storedHash, current, work)) return 'current';
    const legacy = legacyForm(secret);
    if (legacy === current) return false;
    return (await verifyOnce(storedHash, legacy, work)) ? 'legacy' : false;
  };

  return {
    hash,
    async verify(storedHash, secret, work) {
      const matched = await matchForms(storedHash, secret, work);
      if (matched === false) return { valid: false, needsRehash: false };
      return { valid: true, needsRehash: matched === 'legacy' || hashNeedsRehash(await loadArgon2(), storedHash, params) };
    },
    async verifyDummy(secret, work) {
      counts.dummyVerifications += 1;
      // The same verifications as a wrong secret for a real account: never a match, so both forms.
      await matchForms(dummyHash, secret, work);
    },
    stats: {
      get hashes() {
        return counts.hashes;
      },
      get verifications() {
        return counts.verifications;
      },
      get dummyVerifications() {
        return counts.dummyVerifications;
      },
      get inFlight() {
        return limit.active;
      },
      get maxInFlight() {
        return counts.maxInFlight;
      },
      limit: concurrency,
      get queued() {
        return limit.queued;
      },
      get refused() {
        return counts.refused;
      },
    },
  };
}

/** A hash made with another algorithm variant, version or cost than `params` should be replaced. */
function hashNeedsRehash(argon2: Argon2Module, storedHash: string, params: Argon2Params): boolean {
  if (!storedHash.startsWith('$argon2id$')) return true;
  return argon2.needsRehash(storedHash, { ...params, version: 0x13 });
}
