import path from 'node:path';
import { hashingConcurrency } from '../shared/ports/secret-hasher';
import { createChildren, signInAdults } from './accounts';
import { BENCH_TMP, startBenchHost, type BenchHost } from './bench-host';
import { createClient, type BenchClient } from './http-client';
import type { HttpMeasurement } from './http-report';
import { startIdentityProvider, type BenchIdentityProvider } from './id-provider';
import type { MemoryMeasurement } from './memory-report';
import type { Section } from './options';
import { startRawHttpServer } from './raw-http/start-raw-http';
import type { BenchResults } from './report';
import { rssProbe } from './rss';
import {
  adultSignIn,
  getEmpty,
  getMe,
  getRaw,
  measureArgon2VersusSignIn,
  measureBurstMemory,
  measureSideBySide,
  measureUnknownVersusWrong,
  type BurstMemory,
} from './scenarios';

/** The libuv pool size the deployed app runs with (`UV_THREADPOOL_SIZE` in the Dockerfile and infra/main.bicep). */
const BENCH_THREAD_POOL_SIZE = '2';

/** How much each host section measures; run.ts holds the numbers. */
export interface HostPlan {
  concurrency: number;
  adults: number;
  children: number;
  http: {
    rounds: number;
    raw: { warmUp: number; count: number };
    empty: { warmUp: number; count: number };
    me: { warmUp: number; count: number };
    adultSignIn: { warmUp: number; count: number };
  };
  argon2: { warmUp: number; count: number; rounds: number };
  timing: { warmUp: number; pairs: number; rounds: number };
  burst: { count: number; sampleEveryMs: number; hosts: number };
  /** A bench-only pepper: the host and the in-process hasher must share it. */
  pepper: string;
}

/** Runs `work` as the section `name`, recording its time and the load when it began. */
export type SectionTimer = <T>(name: Section | 'host setup', work: () => Promise<T>) => Promise<T>;

type HostResults = Pick<BenchResults, 'hostSettings' | 'http' | 'argon2' | 'timing' | 'memory'>;

/**
 * The sections measured on the local host (`http`, `argon2`, `timing`, `memory`, those of them in
 * `sections`): one host for the accounts and the first three, each memory burst on a fresh host of
 * its own over the same database. The raw `node:http` floor runs beside the host only during `http`.
 */
export async function measureHostSections(
  plan: HostPlan,
  sections: readonly Section[],
  section: SectionTimer,
  note: (message: string) => void,
): Promise<HostResults> {
  const results: HostResults = {};
  let idp: BenchIdentityProvider | undefined;
  let host: BenchHost | undefined;
  let hostClient: BenchClient | undefined;
  try {
    idp = await startIdentityProvider();
    const settings = {
      APP_ENV: 'test',
      LOG_LEVEL: 'info',
      SQLITE_PATH: path.join(BENCH_TMP, 'platform.sqlite'),
      IDP_JWKS_URI: idp.jwksUri,
      IDP_ISSUER: idp.issuer,
      IDP_AUDIENCE: idp.audience,
      CHILD_SECRET_PEPPER: plan.pepper,
      // One trusted proxy hop, and every child sign-in comes from an address of its own
      // (`childSignIn` in scenarios.ts), so the per-address cap (30 failures in 10 minutes) cannot
      // turn the timing run into 429s: without an address all attempts share one bucket.
      TRUST_PROXY_HOPS: '1',
      // As deployed (the image's ENV and infra/main.bicep): libuv's pool, where Argon2 runs, holds
      // two threads, each keeping its 19 MiB arena after a hash.
      UV_THREADPOOL_SIZE: BENCH_THREAD_POOL_SIZE,
    };
    results.hostSettings = { appEnv: settings.APP_ENV, logLevel: settings.LOG_LEVEL };
    const identityProvider = idp;
    host = await startBenchHost(settings);
    const client = createClient(host.baseUrl, plan.concurrency);
    hostClient = client;
    const rss = rssProbe(host.pid);
    const startBytes = rss.current();
    note(`local host on ${host.baseUrl}, pid ${host.pid}; creating ${plan.adults} adults and ${plan.children} children`);
    const adults = await section('host setup', async () => {
      const signedIn = await signInAdults(client, identityProvider, plan.adults);
      const parent = signedIn[0];
      if (!parent) throw new Error('no adult signed in');
      await createChildren(client, parent, plan.children);
      return signedIn;
    });

    if (sections.includes('http')) {
      results.http = await section('http', async () => {
        const raw = await startRawHttpServer();
        const rawClient = createClient(raw.baseUrl, plan.concurrency);
        note(`raw node:http floor on ${raw.baseUrl} (pid ${raw.pid}); it, {}, me and adult sign-in take turns, ${plan.concurrency} at a time, ${plan.http.rounds} rounds`);
        try {
          const [rawResult, empty, me, signIn] = await measureSideBySide(
            [
              { label: 'raw node:http', client: rawClient, ...plan.http.raw, makeRequest: getRaw },
              { label: 'empty', client, ...plan.http.empty, makeRequest: getEmpty },
              { label: 'me', client, ...plan.http.me, makeRequest: getMe(adults) },
              { label: 'adult sign-in', client, ...plan.http.adultSignIn, makeRequest: adultSignIn(adults) },
            ],
            { rounds: plan.http.rounds, concurrency: plan.concurrency, expectedStatus: 200 },
          );
          if (!rawResult || !empty || !me || !signIn) throw new Error('unreachable: one result per endpoint');
          return { concurrency: plan.concurrency, rounds: plan.http.rounds, raw: rawResult, empty, me, adultSignIn: signIn } satisfies HttpMeasurement;
        } finally {
          rawClient.close();
          await raw.stop();
        }
      });
    }
    if (sections.includes('argon2')) {
      note('Argon2id alone against child sign-in, one at a time');
      results.argon2 = await section('argon2', () => measureArgon2VersusSignIn(client, { pepper: plan.pepper, ...plan.argon2 }));
    }
    if (sections.includes('timing')) {
      note('unknown username against wrong PIN, one at a time');
      results.timing = await section('timing', () => measureUnknownVersusWrong(client, { ...plan.timing, childCount: plan.children }));
    }
    const afterRunsBytes = rss.current();
    client.close();
    await host.stop();

    if (sections.includes('memory')) {
      const ranOnFirstHost = sections.some((name) => name === 'http' || name === 'argon2' || name === 'timing');
      results.memory = await section('memory', async () => {
        const bursts: BurstMemory[] = [];
        const again: BurstMemory[] = [];
        for (let repeat = 1; repeat <= plan.burst.hosts; repeat += 1) {
          // A fresh host on the same database, so the burst's peak is not hidden by memory kept from earlier work.
          const fresh = await startBenchHost(settings);
          try {
            note(`${plan.burst.count} child sign-ins at once on fresh host ${repeat} of ${plan.burst.hosts} (pid ${fresh.pid}), then again`);
            const rss = rssProbe(fresh.pid);
            bursts.push(await measureBurstMemory(fresh.baseUrl, rss, plan.burst));
            // The same burst once more on the same host: what the host keeps from the first, and what a burst needs on top.
            again.push(await measureBurstMemory(fresh.baseUrl, rss, plan.burst));
          } finally {
            await fresh.stop();
          }
        }
        return {
          bursts,
          again,
          // The hasher's default (`createSecretHasher`) under the host's pool size.
          argon2AtOnce: hashingConcurrency({ threadPoolSize: Number(BENCH_THREAD_POOL_SIZE) }),
          ...(ranOnFirstHost ? { firstHost: { startBytes, afterRunsBytes } } : {}),
        } satisfies MemoryMeasurement;
      });
    }
    return results;
  } finally {
    hostClient?.close();
    // stop() returns at once for a host that has already stopped.
    await host?.stop();
    await idp?.close();
  }
}
