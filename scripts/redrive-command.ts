import { ConfigError, loadConfig } from '../shared/config';
import type { Database } from '../shared/db/database';
import { openDatabase } from '../shared/db/open-database';
import { systemClock, type Clock } from '../shared/ports/clock';
import { storageFanoutQueue, type FanoutQueue } from '../shared/messages/fanout-queue';
import { storageNoticeQueue, unconfiguredNoticeQueue, type NoticeQueue } from '../shared/messages/notice-queue';
import { recordingFanoutQueue, recordingNoticeQueue, redrivePoison, storagePoisonQueue, type PoisonQueue, type RedriveOptions } from '../shared/notifications';

export const REDRIVE_USAGE = 'usage: npm run redrive-poison -- [--dry-run] [--announcement <id>]\n';

export interface RedriveCommandPorts {
  stdout(text: string): void;
  stderr(text: string): void;
  clock?: Clock;
  /**
   * Tests replace the queues (to make one fail); by default all come from `AzureWebJobsStorage`,
   * as does the notices' when only the others are given.
   */
  queues?: { poison: PoisonQueue; fanout: FanoutQueue; notice?: NoticeQueue };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * `npm run redrive-poison -- [--dry-run] [--announcement <id>]`: sends the messages of
 * `notification-fanout-poison` (announcements' and account notices') again, only to deliveries
 * not yet made (`redrive-poison.ts`), with
 * the app's own settings (`shared/config.ts`: the database and `AzureWebJobsStorage`), as
 * `npm run migrate` reads them. Stdout gets one JSON line per message, then `{"summary": …}`:
 * ids and counts, never an address, number, token or text. Failures go to stderr as a JSON line.
 * @returns the exit code: 0 done (messages skipped included), 1 failed, 2 bad arguments.
 */
export async function runRedriveCommand(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  io: RedriveCommandPorts,
): Promise<number> {
  const options = parseArguments(argv);
  if (options === 'help') {
    io.stdout(REDRIVE_USAGE);
    return 0;
  }
  if (!options) {
    io.stderr(REDRIVE_USAGE);
    return 2;
  }
  const fail = (error: string, details: Record<string, unknown> = {}): number => {
    io.stderr(`${JSON.stringify({ error, ...details })}\n`);
    return 1;
  };
  let database: Database;
  let queues: { poison: PoisonQueue; fanout: FanoutQueue; notice: NoticeQueue };
  try {
    const config = loadConfig(env);
    const storage = config.queueStorage;
    if (io.queues) queues = { ...io.queues, notice: io.queues.notice ?? (storage ? storageNoticeQueue(storage) : unconfiguredNoticeQueue()) };
    else if (storage) queues = { poison: storagePoisonQueue(storage), fanout: storageFanoutQueue(storage), notice: storageNoticeQueue(storage) };
    else return fail('queue_storage_not_configured', { setting: 'AzureWebJobsStorage' });
    database = openDatabase(config.database);
  } catch (error) {
    return fail('invalid_configuration', error instanceof ConfigError ? { problems: error.problems } : { errorType: errorType(error) });
  }
  try {
    const clock = io.clock ?? systemClock;
    // Recorded as the app's own enqueues are, so a re-driven message a dead host takes is re-driven again.
    const recording = { database: { get: async () => database }, clock };
    const summary = await redrivePoison(
      {
        database,
        poisonQueue: queues.poison,
        fanoutQueue: recordingFanoutQueue(queues.fanout, recording),
        noticeQueue: recordingNoticeQueue(queues.notice, recording),
        clock,
      },
      options,
      (entry) => io.stdout(`${JSON.stringify(entry)}\n`),
    );
    io.stdout(`${JSON.stringify({ summary })}\n`);
    return 0;
  } catch (error) {
    // Storage errors quote request URLs, database errors server names: the kind of error only.
    return fail('redrive_failed', { errorType: errorType(error) });
  } finally {
    await database.close().catch(() => undefined);
  }
}

function parseArguments(argv: readonly string[]): RedriveOptions | 'help' | undefined {
  let dryRun = false;
  let announcementId: string | undefined;
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index];
    if (arg === '--dry-run') dryRun = true;
    else if (arg === '--help' || arg === '-h') return 'help';
    else if (arg === '--announcement' && UUID.test(argv[index + 1] ?? '')) {
      announcementId = (argv[index + 1] as string).toLowerCase();
      index += 1;
    } else return undefined;
  }
  return { dryRun, announcementId };
}

/** The kind of an error (its name, code and status, and its cause's), never its message. */
function errorType(error: unknown): string {
  if (typeof error !== 'object' || error === null) return typeof error;
  const { name, code, statusCode, cause } = error as { name?: unknown; code?: unknown; statusCode?: unknown; cause?: unknown };
  const own = [name, code, statusCode].filter((part) => typeof part === 'string' || typeof part === 'number').join(' ');
  return cause === undefined ? own : `${own} (cause: ${errorType(cause)})`;
}
