import { randomUUID } from 'node:crypto';
import { insertAnnouncement } from '../shared/announcements/announcement-store';
import type { Database } from '../shared/db/database';
import type { Channel } from '../shared/ports/delivery';
import { insertUser } from '../shared/users/user-store';

/** The bench's stand-in identity provider issuer: bench users never sign in, the column only must be set. */
const ISSUER = 'https://idp.bench.example/';

/**
 * Writes a fan-out audience in one transaction: `recipients` active adults, each with an e-mail
 * address, a phone number and one push token (so each is reached on all three channels), and one
 * published announcement on `channels` (one channel for a per-channel run, all three for the
 * combined run) by an author who is not a recipient (no contact data, no device). All addresses are
 * fictitious (`example.test`, +1 555 numbers).
 * @returns the announcement's id, for the fan-out message.
 */
export async function seedFanoutAudience(db: Database, recipients: number, now: Date, channels: readonly Channel[]): Promise<string> {
  const at = now.toISOString();
  const adult = (id: string, subject: string, contact: { email: string | null; phone: string | null }) => ({
    id,
    accountType: 'adult' as const,
    issuer: ISSUER,
    subject,
    parentId: null,
    role: 'member' as const,
    status: 'active' as const,
    ...contact,
    createdAt: at,
    updatedAt: at,
  });
  const authorId = randomUUID();
  const announcementId = randomUUID();
  await db.transaction(async (tx) => {
    await insertUser(tx, { ...adult(authorId, 'bench-author', { email: null, phone: null }), role: 'author' });
    for (let index = 0; index < recipients; index += 1) {
      const userId = randomUUID();
      const number = String(index).padStart(7, '0');
      await insertUser(tx, adult(userId, `bench-recipient-${number}`, { email: `bench-${number}@example.test`, phone: `+1555${number}` }));
      // A plain insert: `registerPushToken` also moves and trims devices, which a fresh token never needs.
      await tx.execute('INSERT INTO PushTokens (token, userId, createdAt, updatedAt) VALUES (@token, @userId, @at, @at)', {
        token: `ExponentPushToken[bench-${number}]`,
        userId,
        at,
      });
    }
    await insertAnnouncement(tx, {
      id: announcementId,
      authorId,
      title: 'Bench announcement',
      body: 'The fan-out benchmark sends this text on every channel.',
      channels: [...channels],
      status: 'published',
      rejectionReason: null,
      createdAt: at,
      updatedAt: at,
      submittedAt: at,
      reviewedAt: at,
      reviewedBy: authorId,
      publishedAt: at,
      publishedBy: authorId,
      fanoutEnqueuedAt: at,
    });
  });
  return announcementId;
}
