import type { DeliveryOutcome } from '../../ports/delivery';

/** One device of a push fan-out: the user it belongs to and its Expo push token. */
export interface Device {
  userId: string;
  token: string;
}

/** A device's final answer from Expo (after the retries of transient errors), and how many tries it took. */
export interface AnsweredDevice {
  device: Device;
  outcome: DeliveryOutcome;
  tries: number;
}

/**
 * A user's push result once it is known: `final` goes to the ledger; `postpone` means every device
 * failed and one of them transiently past the retries, so the row is owed to the redelivered message.
 */
export type UserPushResult =
  | { kind: 'final'; userId: string; result: 'success' | 'provider_error' | 'stale_token'; providerCode?: string; providerMessageId?: string; tries: number }
  | { kind: 'postpone'; userId: string; providerCode: string; tries: number };

interface UserState {
  unanswered: number;
  answers: AnsweredDevice[];
  settled: boolean;
}

/**
 * Which users a push request's answers settle, when a user's devices may be spread over several
 * requests answered in any order: a user is delivered by the first device Expo took, and otherwise
 * settled when the last of their devices answered.
 */
export class PushProgress {
  private readonly users = new Map<string, UserState>();

  constructor(devices: readonly Device[]) {
    for (const device of devices) {
      const state = this.users.get(device.userId) ?? { unanswered: 0, answers: [], settled: false };
      state.unanswered += 1;
      this.users.set(device.userId, state);
    }
  }

  /**
   * Takes one request's answers.
   * @returns the users these answers settle, each once over the whole fan-out.
   */
  answer(answered: readonly AnsweredDevice[]): UserPushResult[] {
    const touched = new Set<string>();
    for (const answer of answered) {
      const state = this.users.get(answer.device.userId);
      if (!state) throw new Error('push answer for a device that was not sent');
      state.unanswered -= 1;
      state.answers.push(answer);
      touched.add(answer.device.userId);
    }
    const settled: UserPushResult[] = [];
    for (const userId of touched) {
      const state = this.users.get(userId) as UserState;
      if (state.settled) continue;
      const result = resultOf(userId, state);
      if (!result) continue;
      state.settled = true;
      settled.push(result);
    }
    return settled;
  }
}

function resultOf(userId: string, state: UserState): UserPushResult | undefined {
  const tries = Math.max(...state.answers.map((answer) => answer.tries));
  const success = state.answers.find((answer) => answer.outcome.result === 'success')?.outcome;
  if (success?.result === 'success') {
    return { kind: 'final', userId, result: 'success', ...(success.providerMessageId ? { providerMessageId: success.providerMessageId } : {}), tries };
  }
  if (state.unanswered > 0) return undefined;
  const errors = state.answers
    .map((answer) => answer.outcome)
    .filter((outcome): outcome is Extract<DeliveryOutcome, { result: 'provider_error' }> => outcome.result === 'provider_error');
  const transient = errors.find((error) => error.transient);
  if (transient) return { kind: 'postpone', userId, providerCode: transient.code, tries };
  const permanent = errors[0];
  if (permanent) return { kind: 'final', userId, result: 'provider_error', providerCode: permanent.code, tries };
  const stale = state.answers[0]?.outcome as { code?: string } | undefined;
  return { kind: 'final', userId, result: 'stale_token', providerCode: stale?.code ?? 'DeviceNotRegistered', tries };
}
