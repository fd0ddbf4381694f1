import { startFakeAcs, type FakeAcs, type FakeAcsOptions } from './fake-acs';
import { startFakeExpoPush, type FakeExpoOptions, type FakeExpoPush } from './fake-expo-push';

export * from './fake-acs';
export * from './fake-expo-push';

/** Both fakes, and the environment that points the app at them. */
export interface FakeProviders {
  expo: FakeExpoPush;
  acs: FakeAcs;
  /** `EXPO_PUSH_URL`, `ACS_CONNECTION_STRING`, `ACS_SMS_FROM`, `ACS_EMAIL_SENDER` (+ `EXPO_ACCESS_TOKEN` when set). */
  env: Record<string, string>;
  /** Sets the answer latency of both (the benchmark uses 50 ms). */
  setDelay(ms: number): void;
  reset(): void;
  close(): Promise<void>;
}

export const FAKE_SMS_FROM = '+18005550100';
export const FAKE_EMAIL_SENDER = 'DoNotReply@notifications.example.test';

/** Starts a fake Expo push service and a fake ACS resource (SMS and e-mail) on 127.0.0.1. */
export async function startFakeProviders(
  options: { expo?: FakeExpoOptions; acs?: FakeAcsOptions } = {},
): Promise<FakeProviders> {
  const [expo, acs] = await Promise.all([startFakeExpoPush(options.expo), startFakeAcs(options.acs)]);
  return {
    expo,
    acs,
    env: {
      EXPO_PUSH_URL: expo.url,
      ...(options.expo?.accessToken ? { EXPO_ACCESS_TOKEN: options.expo.accessToken } : {}),
      ACS_CONNECTION_STRING: acs.connectionString,
      ACS_SMS_FROM: FAKE_SMS_FROM,
      ACS_EMAIL_SENDER: FAKE_EMAIL_SENDER,
    },
    setDelay(ms) {
      expo.setDelay(ms);
      acs.setDelay(ms);
    },
    reset() {
      expo.reset();
      acs.reset();
    },
    close: async () => {
      await Promise.all([expo.close(), acs.close()]);
    },
  };
}
