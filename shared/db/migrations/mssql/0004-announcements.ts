import type { SqlExecutor } from '../../database';

/**
 * Announcements and their approval workflow (contract section 9). `submittedAt` is when the
 * announcement last entered `queued` (the queue-depth sample reads the oldest); `fanoutEnqueuedAt`
 * stays null until the publish step has put the fan-out message on the queue, so a publish whose
 * enqueue failed is retried (by the administrator publishing again, or by the queue-depth timer's
 * catch-up). Title and body are content: stored, returned, never logged.
 * The body holds up to 10,000 characters, more than nvarchar(n) allows, hence nvarchar(max).
 */
export async function up(tx: SqlExecutor): Promise<void> {
  await tx.execute(`
    CREATE TABLE dbo.Announcements (
      id nvarchar(64) NOT NULL CONSTRAINT PK_Announcements PRIMARY KEY,
      authorId nvarchar(64) NOT NULL CONSTRAINT FK_Announcements_author REFERENCES dbo.Users (id),
      title nvarchar(200) NOT NULL,
      body nvarchar(max) NOT NULL,
      channels nvarchar(64) NOT NULL CONSTRAINT CK_Announcements_channels CHECK (ISJSON(channels) = 1),
      status nvarchar(16) NOT NULL CONSTRAINT CK_Announcements_status
        CHECK (status IN (N'draft', N'queued', N'approved', N'rejected', N'published')),
      rejectionReason nvarchar(500) NULL,
      createdAt datetime2(3) NOT NULL,
      updatedAt datetime2(3) NOT NULL,
      submittedAt datetime2(3) NULL,
      reviewedAt datetime2(3) NULL,
      reviewedBy nvarchar(64) NULL CONSTRAINT FK_Announcements_reviewer REFERENCES dbo.Users (id),
      publishedAt datetime2(3) NULL,
      publishedBy nvarchar(64) NULL CONSTRAINT FK_Announcements_publisher REFERENCES dbo.Users (id),
      fanoutEnqueuedAt datetime2(3) NULL
    )`);
  await tx.execute('CREATE INDEX IX_Announcements_status_submittedAt ON dbo.Announcements (status, submittedAt)');
  await tx.execute('CREATE INDEX IX_Announcements_status_createdAt ON dbo.Announcements (status, createdAt, id)');
  await tx.execute('CREATE INDEX IX_Announcements_authorId_createdAt ON dbo.Announcements (authorId, createdAt, id)');
  await tx.execute('CREATE INDEX IX_Announcements_status_fanoutEnqueuedAt ON dbo.Announcements (status, fanoutEnqueuedAt, publishedAt)');
}

export async function down(tx: SqlExecutor): Promise<void> {
  await tx.execute('DROP TABLE dbo.Announcements');
}
