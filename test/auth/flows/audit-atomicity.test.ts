import { HttpRequest } from '@azure/functions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChildAccount } from '../../../functions/children';
import { httpHandlerOf } from '../../../shared/composition/app-functions';
import { createChild } from '../../../shared/family/create-child';
import { updateChild } from '../../../shared/family/update-child';
import { startSession } from '../../../shared/sessions/start-session';
import { changeUserRole } from '../../../shared/data-rights/administer-users';
import type { User } from '../../../shared/users/user';
import { call, createFlowHarness, expectNoLeaks, lockByFailures, type FlowHarness } from './flow-harness';
import { DependencyUnavailableError } from '../../../shared/errors/dependency-unavailable';
import { ERROR_CATALOGUE } from '../../../shared/errors/error-catalogue';

/**
 * A change and its audit row commit together or not at all (contract section 7). To make the audit
 * write fail, a test-only trigger on the temporary database refuses inserts into AuditLog of one
 * event type (`RAISE(ABORT)`, which fails the INSERT statement like any database error would);
 * every other row still goes in, so the rest of the log can be checked. One test drops the whole
 * AuditLog table instead (SQLite lets DROP TABLE through the append-only triggers), on a
 * database of its own.
 */

let h: FlowHarness;
let parent: User;

beforeAll(async () => {
  h = await createFlowHarness();
  parent = await h.insertAdult();
});

afterAll(async () => {
  await h?.close();
});

/** Runs `work` while inserting an AuditLog row of `eventType` fails. */
async function withAuditRefusing<T>(eventType: string, work: () => Promise<T>): Promise<T> {
  const db = await h.services.database.get();
  await db.execute(
    `CREATE TRIGGER FlowsRefuseAudit BEFORE INSERT ON AuditLog WHEN NEW.eventType = '${eventType}'
     BEGIN SELECT RAISE(ABORT, 'audit row refused by the test'); END`,
  );
  try {
    return await work();
  } finally {
    await db.execute('DROP TRIGGER FlowsRefuseAudit');
  }
}

const count = (sql: string, params: Record<string, string | number | null> = {}): number =>
  Number(h.rows<{ n: number }>(`SELECT COUNT(*) AS n FROM (${sql})`, params)[0]?.n ?? -1);


/** The audit writer reports a row it could not store as the database being unavailable (503), with the cause kept. */
function unavailableBecause(cause: RegExp) {
  return (error: unknown): boolean =>
    error instanceof DependencyUnavailableError && error.cause instanceof Error && cause.test(error.cause.message);
}
const auditRowRefused = unavailableBecause(/audit row refused/);

describe('when the audit row cannot be written', () => {
  it('creates no child: no Users row, no ChildAccounts row, the username stays free', async () => {
    const usersBefore = count('SELECT id FROM Users');
    const mark = h.auditMark();
    h.canaries.add('canary-kid-atomic', '3816402');
    await expect(
      withAuditRefusing('child_created', () =>
        createChild(parent, { username: 'canary-kid-atomic', secret: { kind: 'pin', value: '3816402' }, scopes: ['events'] }, h.services.childAccountPorts),
      ),
    ).rejects.toSatisfy(auditRowRefused);
    expect(count('SELECT id FROM Users')).toBe(usersBefore);
    expect(count(`SELECT userId FROM ChildAccounts WHERE username = 'canary-kid-atomic'`)).toBe(0);
    expect(count(`SELECT id FROM Users WHERE parentId = @id`, { id: parent.id })).toBe(0);
    expect(h.auditAfter(mark)).toEqual([]);
    // Nothing half-made blocks the name: with the audit log working again, the same request succeeds.
    const child = await h.createChild(parent, 'canary-kid-atomic', '3816402', ['events']);
    expect(count(`SELECT id FROM Users WHERE parentId = @id`, { id: parent.id })).toBe(1);
    expect(h.auditAfter(mark).map((row) => [row.eventType, row.subjectUserId])).toEqual([
      ['child_created', child.id],
      ['consent_given', child.id],
    ]);
  });

  it('creates no child without its consent record: a refused consent_given row undoes the whole creation', async () => {
    const mark = h.auditMark();
    h.canaries.add('canary-kid-no-consent', '5829301');
    await expect(
      withAuditRefusing('consent_given', () =>
        createChild(parent, { username: 'canary-kid-no-consent', secret: { kind: 'pin', value: '5829301' }, scopes: ['events'] }, h.services.childAccountPorts),
      ),
    ).rejects.toSatisfy(auditRowRefused);
    expect(count(`SELECT userId FROM ChildAccounts WHERE username = 'canary-kid-no-consent'`)).toBe(0);
    expect(count('SELECT id FROM ChildConsents c WHERE NOT EXISTS (SELECT 1 FROM Users u WHERE u.id = c.childUserId)')).toBe(0);
    expect(h.auditAfter(mark)).toEqual([]);
  });

  it('keeps the old scopes and the consent in force when the new consent or the withdrawal row fails', async () => {
    const child = await h.createChild(parent, 'canary-kid-consent-kept', '6150394', ['announcements', 'events']);
    const before = h.rows('SELECT scopes FROM ChildAccounts WHERE userId = @id', { id: child.id });
    const consentsBefore = h.rows('SELECT * FROM ChildConsents WHERE childUserId = @id', { id: child.id });
    expect(consentsBefore).toHaveLength(1);
    const mark = h.auditMark();
    for (const eventType of ['consent_given', 'consent_withdrawn']) {
      await expect(
        withAuditRefusing(eventType, () => updateChild(parent, child.id, { scopes: ['events'] }, h.services.childAccountPorts)),
      ).rejects.toSatisfy(auditRowRefused);
      expect(h.rows('SELECT scopes FROM ChildAccounts WHERE userId = @id', { id: child.id })).toEqual(before);
      expect(h.rows('SELECT * FROM ChildConsents WHERE childUserId = @id', { id: child.id })).toEqual(consentsBefore);
    }
    expect(h.auditAfter(mark)).toEqual([]);
  });

  it('answers the HTTP request 503 service_unavailable, logged at error level with a stack and sent as an exception', async () => {
    const db = await h.services.database.get();
    const session = await startSession(db, parent, h.clock.now(), { random: h.services.random, policy: h.services.sessionPolicy });
    h.canaries.add(session.token, session.token.split('.')[1] ?? '', 'canary-kid-http-atomic', '4927513');
    // The real children-create endpoint, on the harness's services.
    const endpoint = httpHandlerOf(createChildAccount, h.services);
    const exceptionsBefore = h.telemetry.itemsOf('exception').length;
    const answer = await withAuditRefusing('child_created', () =>
      call(
        endpoint,
        new HttpRequest({
          method: 'POST',
          url: 'http://localhost:7071/api/v1/children',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${session.token}` },
          body: { string: JSON.stringify({ username: 'canary-kid-http-atomic', pin: '4927513', scopes: ['media'] }) },
        }),
        'children-create',
      ),
    );
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ code: 'service_unavailable', status: 503 });
    // The catalogue's generic detail: nothing of the cause reaches the client.
    expect(answer.body?.detail).toBe(ERROR_CATALOGUE.service_unavailable.detail);
    const errorLine = h.sink.lines.find((line) => line.requestId === answer.headers['X-Request-Id'] && line.level === 'error');
    expect(errorLine).toMatchObject({ message: 'request handled', errorCode: 'service_unavailable', userId: parent.id });
    expect(String(errorLine?.stack)).toContain('audit row refused');
    expect(h.telemetry.itemsOf('exception').length).toBe(exceptionsBefore + 1);
    expect(count(`SELECT userId FROM ChildAccounts WHERE username = 'canary-kid-http-atomic'`)).toBe(0);
  });

  it('keeps the old PIN, the lock, the failure count and the sessions when the new-PIN audit row fails', async () => {
    const oldPin = '6038271';
    const child = await h.createChild(parent, 'canary-kid-atomic-pin', oldPin);
    const signedIn = await h.signInChild('canary-kid-atomic-pin', oldPin);
    if (!signedIn.ok) throw new Error('child sign-in refused');
    h.canaries.add('9150382');
    await lockByFailures(h, 'canary-kid-atomic-pin', '9150382');
    const before = h.rows('SELECT secretHash, secretKind, lockedAt, scopes FROM ChildAccounts WHERE userId = @id', { id: child.id });
    const failuresBefore = h.rows('SELECT * FROM SignInUsernameFailures');

    const newPin = '7261493';
    h.canaries.add(newPin);
    await expect(
      withAuditRefusing('child_updated', () =>
        updateChild(parent, child.id, { secret: { kind: 'pin', value: newPin }, scopes: ['media'] }, h.services.childAccountPorts),
      ),
    ).rejects.toSatisfy(auditRowRefused);

    expect(h.rows('SELECT secretHash, secretKind, lockedAt, scopes FROM ChildAccounts WHERE userId = @id', { id: child.id })).toEqual(before);
    expect(h.rows('SELECT * FROM SignInUsernameFailures')).toEqual(failuresBefore);
    expect(count(`SELECT id FROM Sessions WHERE userId = @id AND endedAt IS NULL`, { id: child.id })).toBe(1);
    expect(count(`SELECT id FROM AuditLog WHERE subjectUserId = @id AND eventType = 'authn_token_revoked'`, { id: child.id })).toBe(0);
    expect((await h.authenticate(signedIn.started.token)).ok).toBe(true);
    // Still locked: even the new PIN is refused.
    expect(await h.signInChild('canary-kid-atomic-pin', newPin)).toMatchObject({ ok: false, problem: { code: 'invalid_credentials' } });
  });

  it('keeps the role and the sessions when the authz_change row fails', async () => {
    const admin = await h.insertAdult({ role: 'admin' });
    const member = await h.insertAdult({ role: 'member' });
    const db = await h.services.database.get();
    const session = await startSession(db, member, h.clock.now(), { random: h.services.random, policy: h.services.sessionPolicy });
    h.canaries.add(session.token, session.token.split('.')[1] ?? '');
    await expect(withAuditRefusing('authz_change', () => changeUserRole(admin, member.id, 'author', h.services.corePorts))).rejects.toSatisfy(auditRowRefused);
    expect(h.rows('SELECT role FROM Users WHERE id = @id', { id: member.id })).toEqual([{ role: 'member' }]);
    const auth = await h.authenticate(session.token);
    expect(auth).toMatchObject({ ok: true, user: { role: 'member' } });
  });

  it('starts no session and keeps the failure count when the sign-in success row fails', async () => {
    const pin = '8372605';
    const child = await h.createChild(parent, 'canary-kid-atomic-login', pin);
    h.canaries.add('1593827');
    await h.signInChild('canary-kid-atomic-login', '1593827');
    await h.signInChild('canary-kid-atomic-login', '1593827');
    const failuresBefore = h.rows('SELECT * FROM SignInUsernameFailures');
    await expect(withAuditRefusing('authn_login_success', () => h.signInChild('canary-kid-atomic-login', pin))).rejects.toSatisfy(auditRowRefused);
    expect(count('SELECT id FROM Sessions WHERE userId = @id', { id: child.id })).toBe(0);
    expect(h.rows('SELECT * FROM SignInUsernameFailures')).toEqual(failuresBefore);
  });
});

describe('with the AuditLog table dropped', () => {
  it('creates no child either', async () => {
    const own = await createFlowHarness();
    try {
      const owner = await own.insertAdult();
      const db = await own.services.database.get();
      await db.execute('DROP TABLE AuditLog');
      own.canaries.add('canary-kid-no-log', '5038164');
      await expect(
        createChild(owner, { username: 'canary-kid-no-log', secret: { kind: 'pin', value: '5038164' }, scopes: [] }, own.services.childAccountPorts),
      ).rejects.toSatisfy(unavailableBecause(/AuditLog/));
      expect(own.rows(`SELECT userId FROM ChildAccounts`)).toEqual([]);
      expect(own.rows(`SELECT id FROM Users WHERE accountType = 'child'`)).toEqual([]);
      expect(own.canaries.findIn(own.sink.text)).toEqual([]);
    } finally {
      await own.close();
    }
  });
});

describe('leaks', () => {
  it('writes no PIN, username, hash, token or pepper to the log, the audit log or telemetry, error lines included', () => {
    expect(h.sink.lines.some((line) => line.level === 'error')).toBe(true);
    expectNoLeaks(h, 15);
  });
});
