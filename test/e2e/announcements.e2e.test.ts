import { randomBytes } from 'node:crypto';
import { QueueClient } from '@azure/storage-queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAzurite } from '../../devhost/azurite';
import { ApiClient, type ApiResponse } from '../helpers/api-client';
import { startAuthTestHost, type AuthTestHost } from '../helpers/auth-test-host';
import { CanaryTracker } from '../helpers/canaries';
import { startLocalHost, type LocalHost } from '../helpers/local-host';
import { auditRows } from '../helpers/sqlite-reader';

/**
 * The announcement workflow over real HTTP through the local host, with SQLite and Azurite: every
 * transition and every refused one, the role checks, the child scope rule, the audit rows, info
 * lines and `approval.queue_depth` events of each step, the fan-out message a publish enqueues,
 * and no announcement text, rejection reason or token anywhere in stdout or the audit log.
 */
const FANOUT_QUEUE = 'notification-fanout';

let env: AuthTestHost;
let databaseFile: string;
let azurite: RunningAzurite;
let host: LocalHost;
let api: ApiClient;
const canaries = new CanaryTracker();

interface Actor {
  token: string;
  userId: string;
}
let admin: Actor;
let author: Actor;
let otherAuthor: Actor;
let member: Actor;
let scopedChild: Actor;
let unscopedChild: Actor;

async function signIn(sub: string): Promise<Actor> {
  const { token, userId, response } = await api.signInAdult(env.idToken(sub));
  expect(response.status).toBe(200);
  return { token, userId };
}

/** Signs `sub` in, has the administrator make them an author, and signs them in again (a role change ends sessions). */
async function newAuthor(sub: string): Promise<Actor> {
  const first = await signIn(sub);
  const change = await api.request('PATCH', `/api/v1/users/${first.userId}/role`, { token: admin.token, body: { role: 'author' } });
  expect(change.status).toBe(200);
  return signIn(sub);
}

async function newChild(parent: Actor, username: string, pin: string, scopes: string[]): Promise<Actor> {
  const created = await api.createChild(parent.token, { username, pin, scopes });
  expect(created.status).toBe(201);
  const session = await api.signInChild(username, pin, { headers: { 'x-forwarded-for': `198.51.100.${scopes.length + 10}` } });
  expect(session.status).toBe(200);
  return { token: String(session.body.token), userId: String(created.body.id) };
}

/** A request with its own trace id, so its audit rows and log lines can be picked out. */
async function call(
  method: string,
  pathname: string,
  actor: Actor,
  body?: unknown,
): Promise<ApiResponse & { traceId: string; requestId: string }> {
  const traceId = randomBytes(16).toString('hex');
  const response = await api.request(method, pathname, {
    token: actor.token,
    headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    ...(body === undefined ? {} : { body }),
  });
  return { ...response, traceId, requestId: String(response.headers.get('x-request-id')) };
}

let textCounter = 0;
/** A title and body that are canaries: they must never show up in stdout or the audit log. */
function content(): { title: string; body: string } {
  textCounter += 1;
  const title = `Canary title ${textCounter}: choir practice moves ${randomBytes(4).toString('hex')}`;
  const body = `Canary body ${textCounter}: bring your own sheet music ${randomBytes(6).toString('hex')}`;
  canaries.add(title, body);
  return { title, body };
}

async function draft(by: Actor = author, channels: string[] = ['push', 'email']): Promise<string> {
  const response = await call('POST', '/api/v1/announcements', by, { ...content(), channels });
  expect(response.status).toBe(201);
  return String(response.body.id);
}

async function step(id: string, action: 'submit' | 'approve' | 'reject' | 'publish', by: Actor): Promise<ApiResponse & { traceId: string; requestId: string }> {
  const reason = action === 'reject' ? `Canary reason ${randomBytes(6).toString('hex')}` : undefined;
  if (reason) canaries.add(reason);
  return call('POST', `/api/v1/announcements/${id}/${action}`, by, reason ? { reason } : undefined);
}

/** An announcement by `author` brought to `status` through the API. */
async function inStatus(status: 'draft' | 'queued' | 'approved' | 'rejected' | 'published'): Promise<string> {
  const id = await draft();
  if (status === 'draft') return id;
  expect((await step(id, 'submit', author)).status).toBe(200);
  if (status === 'queued') return id;
  if (status === 'rejected') {
    expect((await step(id, 'reject', admin)).status).toBe(200);
    return id;
  }
  expect((await step(id, 'approve', admin)).status).toBe(200);
  if (status === 'approved') return id;
  expect((await step(id, 'publish', admin)).status).toBe(200);
  return id;
}

function fanoutQueue(): QueueClient {
  return new QueueClient(azurite.connectionString, FANOUT_QUEUE);
}

beforeAll(async () => {
  env = await startAuthTestHost(
    'announcements',
    canaries,
    { BOOTSTRAP_ADMIN_SUBJECTS: 'root-admin', TRUST_PROXY_HOPS: '1', CHILD_SECRET_PEPPER: 'e2e-announcements-pepper-0123456789abcdef' },
    { azurite: true },
  );
  ({ host, api, databaseFile } = env);
  azurite = env.azurite as RunningAzurite;
  admin = await signIn('root-admin');
  author = await newAuthor('author-ann');
  otherAuthor = await newAuthor('author-bob');
  member = await signIn('member-max');
  const parent = await signIn('parent-pat');
  scopedChild = await newChild(parent, 'reader-kid', '482913', ['announcements', 'events']);
  unscopedChild = await newChild(parent, 'events-kid', '593028', ['events']);
});

afterAll(async () => {
  await env?.stop();
});

describe('the workflow', () => {
  it('takes one announcement through every step, each audited, logged and reporting the queue depth', async () => {
    const created = await call('POST', '/api/v1/announcements', author, { ...content(), channels: ['push', 'sms', 'email'] });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'draft',
      title: expect.any(String),
      body: expect.any(String),
      channels: ['push', 'sms', 'email'],
      authorId: author.userId,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      submittedAt: null,
      reviewedAt: null,
      publishedAt: null,
      rejectionReason: null,
    });
    const id = String(created.body.id);

    const submitted = await step(id, 'submit', author);
    const rejected = await step(id, 'reject', admin);
    expect(rejected.body).toMatchObject({ status: 'rejected', rejectionReason: expect.stringMatching(/^Canary reason /) });
    const edited = await call('PATCH', `/api/v1/announcements/${id}`, author, { title: content().title });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ status: 'rejected' });
    const resubmitted = await step(id, 'submit', author);
    expect(resubmitted.body).toMatchObject({ status: 'queued', rejectionReason: null });
    const approved = await step(id, 'approve', admin);
    const published = await step(id, 'publish', admin);
    expect(published.body).toMatchObject({ status: 'published', publishedAt: expect.any(String) });

    const steps = [
      [created, 'announcement_draft_created', 'announcement draft created', author, 'author', 'draft', 0],
      [submitted, 'announcement_submitted', 'announcement submitted', author, 'author', 'queued', 1],
      [rejected, 'announcement_rejected', 'announcement rejected', admin, 'admin', 'rejected', 0],
      [resubmitted, 'announcement_submitted', 'announcement submitted', author, 'author', 'queued', 1],
      [approved, 'announcement_approved', 'announcement approved', admin, 'admin', 'approved', 0],
      [published, 'announcement_published', 'announcement published', admin, 'admin', 'published', 0],
    ] as const;
    const rows = auditRows(databaseFile);
    for (const [response, eventType, message, actor, role, status, depth] of steps) {
      expect(response.status).toBe(response === created ? 201 : 200);
      const row = rows.filter((r) => r.traceId === response.traceId);
      expect(row).toHaveLength(1);
      expect(row[0]).toMatchObject({ eventType, outcome: 'success', actorUserId: actor.userId, targetType: 'announcement', targetId: id });
      const details = JSON.parse(String(row[0]?.details)) as Record<string, unknown>;
      expect(details).toMatchObject({ announcementId: id, role, status });
      if (eventType === 'announcement_rejected') expect(Object.keys(details).sort()).toEqual(['announcementId', 'reasonLength', 'role', 'status']);

      const line = await host.waitForLine((l) => l.message === message && l.requestId === response.requestId);
      expect(line).toMatchObject({ level: 'info', announcementId: id, userId: actor.userId, role, status, traceId: response.traceId });
      const depthLine = await host.waitForLine((l) => l.event === 'approval.queue_depth' && l.requestId === response.requestId);
      // The log-only telemetry backend writes property values as (scrubbed) text.
      const properties = depthLine.properties as Record<string, string>;
      expect(Object.keys(properties).sort()).toEqual(['depth', 'oldestQueuedAgeHours']);
      expect(Number(properties.depth)).toBe(depth);
      expect(Number(properties.oldestQueuedAgeHours)).toBeGreaterThanOrEqual(0);
    }
    // The edit is not a workflow step: no audit row, no queue-depth event.
    expect(rows.filter((r) => r.traceId === edited.traceId)).toEqual([]);
    expect(host.lines.filter((l) => l.event === 'approval.queue_depth' && l.requestId === edited.requestId)).toEqual([]);
  });

  it('publishing enqueues exactly one base64 JSON fan-out message for the announcement', async () => {
    const id = await inStatus('approved');
    const published = await step(id, 'publish', admin);
    expect(published.status).toBe(200);
    await host.waitForLine((l) => l.message === 'fan-out enqueued' && l.announcementId === id && l.requestId === published.requestId);

    // The fan-out function (when the app has one) competes for the message; whichever sees it
    // first, the message must be the one contract section 10 describes, and only one.
    const queue = fanoutQueue();
    const deadline = Date.now() + 10_000;
    let seenInQueue: string[] = [];
    let consumed = false;
    while (Date.now() < deadline) {
      const peeked = await queue.peekMessages({ numberOfMessages: 32 });
      seenInQueue = peeked.peekedMessageItems
        .map((message) => message.messageText)
        .filter((text) => Buffer.from(text, 'base64').toString('utf8').includes(id));
      consumed = host.lines.some((l) => l.announcementId === id && l.message === 'fan-out initiated');
      if (seenInQueue.length > 0 || consumed) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    if (seenInQueue.length > 0) {
      expect(seenInQueue).toHaveLength(1);
      const text = seenInQueue[0] ?? '';
      expect(text).toMatch(/^[A-Za-z0-9+/]+=*$/);
      expect(JSON.parse(Buffer.from(text, 'base64').toString('utf8'))).toEqual({ kind: 'announcement', announcementId: id });
    } else {
      expect(consumed).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(host.lines.filter((l) => l.announcementId === id && l.message === 'fan-out initiated')).toHaveLength(1);
    }
    expect(host.lines.filter((l) => l.message === 'fan-out enqueued' && l.announcementId === id)).toHaveLength(1);
    expect((await step(id, 'publish', admin)).body).toMatchObject({ code: 'invalid_transition' });
    expect(host.lines.filter((l) => l.message === 'fan-out enqueued' && l.announcementId === id)).toHaveLength(1);
  });

  it('refuses every step the transition table does not have with 409 invalid_transition, changing nothing', async () => {
    const refused = {
      draft: ['approve', 'reject', 'publish'],
      queued: ['submit', 'publish'],
      approved: ['submit', 'approve', 'reject'],
      rejected: ['approve', 'reject', 'publish'],
      published: ['submit', 'approve', 'reject', 'publish'],
    } as const;
    const auditBefore = auditRows(databaseFile).length;
    let cases = 0;
    for (const [status, actions] of Object.entries(refused)) {
      const id = await inStatus(status as keyof typeof refused);
      const auditMark = auditRows(databaseFile).length;
      for (const action of actions) {
        const response = await step(id, action, action === 'submit' ? author : admin);
        expect({ status, action, code: response.body.code, httpStatus: response.status }).toEqual({
          status,
          action,
          code: 'invalid_transition',
          httpStatus: 409,
        });
        expect(response.headers.get('content-type')).toBe('application/problem+json');
        const line = await host.waitForLine((l) => l.message === 'announcement transition refused' && l.requestId === response.requestId);
        expect(line).toMatchObject({ announcementId: id, action, currentStatus: status });
        cases += 1;
      }
      if (['queued', 'approved', 'published'].includes(status)) {
        const edit = await call('PATCH', `/api/v1/announcements/${id}`, author, { body: content().body });
        expect({ status, code: edit.body.code }).toEqual({ status, code: 'invalid_transition' });
        cases += 1;
      }
      expect((await call('GET', `/api/v1/announcements/${id}`, admin)).body.status).toBe(status);
      expect(auditRows(databaseFile)).toHaveLength(auditMark);
    }
    expect(cases).toBe(18);
    expect(auditRows(databaseFile).length).toBeGreaterThan(auditBefore);
  });
});

describe('twenty concurrent calls of one step over two hosts on one database', () => {
  it('let exactly one call of each step succeed: the others get 409, and there is one audit row and one fan-out', async () => {
    const second = await startLocalHost(env.hostEnv);
    try {
      const apis = [api, new ApiClient(second.baseUrl, canaries)];
      const race = (id: string, action: 'submit' | 'approve' | 'reject' | 'publish', by: Actor) =>
        Promise.all(
          Array.from({ length: 20 }, (_, index) =>
            (apis[index % 2] ?? api).request('POST', `/api/v1/announcements/${id}/${action}`, {
              token: by.token,
              ...(action === 'reject' ? { body: { reason: 'Not this week' } } : {}),
            }),
          ),
        );
      const cases = [
        { from: 'draft', action: 'submit', by: author, event: 'announcement_submitted' },
        { from: 'queued', action: 'approve', by: admin, event: 'announcement_approved' },
        { from: 'queued', action: 'reject', by: admin, event: 'announcement_rejected' },
        { from: 'approved', action: 'publish', by: admin, event: 'announcement_published' },
      ] as const;
      for (const { from, action, by, event } of cases) {
        const id = await inStatus(from);
        const answers = await race(id, action, by);
        expect(answers.filter((answer) => answer.status === 200), action).toHaveLength(1);
        expect(answers.filter((answer) => answer.status === 409 && answer.body.code === 'invalid_transition'), action).toHaveLength(19);
        expect(auditRows(databaseFile).filter((row) => row.targetId === id && row.eventType === event), action).toHaveLength(1);
        if (action === 'publish') {
          const enqueued = () => [...host.lines, ...second.lines].filter((l) => l.message === 'fan-out enqueued' && l.announcementId === id);
          for (let waited = 0; waited < 5000 && enqueued().length === 0; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
          // Time for a second enqueue to show, were there one.
          await new Promise((resolve) => setTimeout(resolve, 300));
          expect(enqueued()).toHaveLength(1);
        }
      }
    } finally {
      await second.stop();
      expect(second.invalidLines).toEqual([]);
    }
  });
});

describe('who may do what', () => {
  it('lets only authors and administrators write', async () => {
    for (const actor of [member, scopedChild, unscopedChild]) {
      const response = await call('POST', '/api/v1/announcements', actor, { ...content(), channels: ['push'] });
      expect(response.status).toBe(403);
      expect(response.body.code).toBe('forbidden');
    }
    expect((await call('POST', '/api/v1/announcements', admin, { ...content(), channels: ['email'] })).status).toBe(201);
  });

  it('gives review and publication to administrators only', async () => {
    const queued = await inStatus('queued');
    const approved = await inStatus('approved');
    for (const actor of [author, otherAuthor, member, scopedChild]) {
      expect((await step(queued, 'approve', actor)).status).toBe(403);
      expect((await step(queued, 'reject', actor)).status).toBe(403);
      expect((await step(approved, 'publish', actor)).status).toBe(403);
    }
    expect((await call('GET', `/api/v1/announcements/${queued}`, admin)).body.status).toBe('queued');
    expect((await call('GET', `/api/v1/announcements/${approved}`, admin)).body.status).toBe('approved');
  });

  it('lets only its author edit and submit it: others get 404 for what they cannot see, 403 otherwise', async () => {
    const id = await draft();
    expect((await call('PATCH', `/api/v1/announcements/${id}`, otherAuthor, { title: content().title })).status).toBe(404);
    expect((await step(id, 'submit', otherAuthor)).status).toBe(404);
    // Administrators see every draft but write only their own.
    expect((await call('PATCH', `/api/v1/announcements/${id}`, admin, { title: content().title })).status).toBe(403);
    expect((await step(id, 'submit', admin)).status).toBe(403);
    const published = await inStatus('published');
    expect((await call('PATCH', `/api/v1/announcements/${published}`, otherAuthor, { title: content().title })).status).toBe(403);
    expect((await call('PATCH', `/api/v1/announcements/${id}`, author, { channels: ['sms'] })).body).toMatchObject({ channels: ['sms'] });
  });

  it.each([
    ['an empty title', { title: '  ', body: 'x', channels: ['push'] }],
    ['a title of 201 characters', { title: 'x'.repeat(201), body: 'x', channels: ['push'] }],
    ['a body of 10,001 characters', { title: 't', body: 'x'.repeat(10_001), channels: ['push'] }],
    ['no channels', { title: 't', body: 'x', channels: [] }],
    ['a repeated channel', { title: 't', body: 'x', channels: ['push', 'push'] }],
    ['an unknown channel', { title: 't', body: 'x', channels: ['fax'] }],
    ['an unknown field', { title: 't', body: 'x', channels: ['push'], pinned: true }],
  ])('answers %s with 400 invalid_request', async (_name, body) => {
    const response = await call('POST', '/api/v1/announcements', author, body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_request');
  });

  it('answers bad ids, bad lists, empty edits and reasonless rejections with 400, and unknown ids with 404', async () => {
    expect((await call('GET', '/api/v1/announcements/42', admin)).status).toBe(400);
    expect((await call('GET', '/api/v1/announcements?status=archived', admin)).status).toBe(400);
    expect((await call('GET', '/api/v1/announcements?limit=0', admin)).status).toBe(400);
    const id = await inStatus('queued');
    expect((await call('POST', `/api/v1/announcements/${id}/reject`, admin, {})).status).toBe(400);
    expect((await call('PATCH', `/api/v1/announcements/${await draft()}`, author, {})).status).toBe(400);
    const unknown = await call('GET', '/api/v1/announcements/00000000-0000-4000-8000-00000000abcd', admin);
    expect(unknown.status).toBe(404);
    expect((await step('00000000-0000-4000-8000-00000000abcd', 'approve', admin)).status).toBe(404);
    expect((await api.request('GET', '/api/v1/announcements')).status).toBe(401);
  });
});

describe('reading', () => {
  let authorsDraft: string;
  let published: string;

  beforeAll(async () => {
    authorsDraft = await draft(otherAuthor);
    published = await inStatus('published');
  });

  it('shows adults published announcements and their own, administrators everything', async () => {
    const forMember = await call('GET', '/api/v1/announcements?limit=200', member);
    const memberItems = forMember.body.items as { id: string; status: string }[];
    expect(memberItems.length).toBeGreaterThan(0);
    expect(memberItems.every((item) => item.status === 'published')).toBe(true);
    expect(memberItems.some((item) => item.id === published)).toBe(true);
    expect((await call('GET', `/api/v1/announcements/${authorsDraft}`, member)).status).toBe(404);

    const forAuthor = await call('GET', '/api/v1/announcements?status=draft&limit=200', otherAuthor);
    expect((forAuthor.body.items as { id: string }[]).map((item) => item.id)).toEqual([authorsDraft]);
    expect((await call('GET', `/api/v1/announcements/${authorsDraft}`, otherAuthor)).status).toBe(200);

    const forAdmin = await call('GET', '/api/v1/announcements?status=draft&limit=200', admin);
    expect((forAdmin.body.items as { id: string }[]).some((item) => item.id === authorsDraft)).toBe(true);
    const statuses = new Set(((await call('GET', '/api/v1/announcements?limit=200', admin)).body.items as { status: string }[]).map((i) => i.status));
    expect([...statuses].sort()).toEqual(['approved', 'draft', 'published', 'queued', 'rejected']);
  });

  it('pages newest first with nextCursor', async () => {
    const first = await call('GET', '/api/v1/announcements?limit=2', admin);
    const second = await call('GET', `/api/v1/announcements?limit=2&cursor=${String(first.body.nextCursor)}`, admin);
    const all = await call('GET', '/api/v1/announcements?limit=4', admin);
    const ids = (response: ApiResponse) => (response.body.items as { id: string }[]).map((item) => item.id);
    expect([...ids(first), ...ids(second)]).toEqual(ids(all));
    const created = (all.body.items as { createdAt: string }[]).map((item) => item.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
    expect((await call('GET', '/api/v1/announcements?cursor=bogus', admin)).status).toBe(400);
  });

  it('shows a child with the announcements scope published ones only', async () => {
    const list = await call('GET', '/api/v1/announcements?limit=200', scopedChild);
    expect(list.status).toBe(200);
    const items = list.body.items as { id: string; status: string }[];
    expect(items.some((item) => item.id === published)).toBe(true);
    expect(items.every((item) => item.status === 'published')).toBe(true);
    expect((await call('GET', '/api/v1/announcements?status=draft', scopedChild)).body).toEqual({ items: [], nextCursor: null });
    expect((await call('GET', `/api/v1/announcements/${published}`, scopedChild)).status).toBe(200);
    expect((await call('GET', `/api/v1/announcements/${authorsDraft}`, scopedChild)).status).toBe(404);
  });

  it('refuses a child without the scope: 403, a line with its userId and the section, an authz_fail row', async () => {
    for (const pathname of ['/api/v1/announcements', `/api/v1/announcements/${published}`]) {
      const response = await call('GET', pathname, unscopedChild);
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ code: 'forbidden', traceId: response.traceId });
      const line = await host.waitForLine((l) => l.message === 'section access refused' && l.requestId === response.requestId);
      expect(line).toMatchObject({ userId: unscopedChild.userId, section: 'announcements' });
      const rows = auditRows(databaseFile).filter((row) => row.traceId === response.traceId);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ eventType: 'authz_fail', outcome: 'failure', actorUserId: unscopedChild.userId, targetType: 'section', targetId: 'announcements' });
    }
  });
});

describe('what the app wrote', () => {
  it('holds no announcement text, rejection reason or token in stdout or the audit log', () => {
    expect(host.invalidLines).toEqual([]);
    expect(canaries.size).toBeGreaterThan(40);
    expect(canaries.findIn(`{"message":"${content().title}"}`)).toHaveLength(1);
    expect(canaries.findIn(host.stdout.join('\n'))).toEqual([]);
    expect(canaries.findIn(JSON.stringify(auditRows(databaseFile)))).toEqual([]);
  });
});
