import type { SqlExecutor } from '../../database';

/**
 * Announcements and their approval workflow (contract section 9). `submittedAt` is when the
 * announcement last entered `queued` (the queue-depth sample reads the oldest); `fanoutEnqueuedAt`
 * stays null until the publish step has put the fan-out message on the queue, so a publish whose
 * enqueue failed is retried (by the administrator publishing again, or by the queue-depth timer's
 * catch-up). Title and body are content: stored, returned, never logged.
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute(`
    CREATE TABLE Announcements (
      id TEXT NOT NULL PRIMARY KEY,
      authorId TEXT NOT NULL REFERENCES Users (id),
      title TEXT NOT NULL,
      body TEXT NOT NULL,
      channels TEXT NOT NULL CHECK (json_valid(channels)),
      status TEXT NOT NULL CHECK (status IN ('draft', 'queued', 'approved', 'rejected', 'published')),
      rejectionReason TEXT NULL,
      createdAt TEXT NOT NULL,
      updatedAt TEXT NOT NULL,
      submittedAt TEXT NULL,
      reviewedAt TEXT NULL,
      reviewedBy TEXT NULL REFERENCES Users (id),
      publishedAt TEXT NULL,
      publishedBy TEXT NULL REFERENCES Users (id),
      fanoutEnqueuedAt TEXT NULL
    ) STRICT`);
  await tx.execute('CREATE INDEX IX_Announcements_status_submittedAt ON Announcements (status, submittedAt)');
  await tx.execute('CREATE INDEX IX_Announcements_status_createdAt ON Announcements (status, createdAt, id)');
  await tx.execute('CREATE INDEX IX_Announcements_authorId_createdAt ON Announcements (authorId, createdAt, id)');
  await tx.execute('CREATE INDEX IX_Announcements_status_fanoutEnqueuedAt ON Announcements (status, fanoutEnqueuedAt, publishedAt)');
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP TABLE Announcements');
}
