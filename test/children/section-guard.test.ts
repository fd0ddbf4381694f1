import { HttpRequest } from '@azure/functions';
import { listAnnouncementsEndpoint } from '../../functions/announcements';
import { httpHandlerOf } from '../../shared/composition/app-functions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireSection } from '../../shared/children/require-section';
import { updateChild } from '../../shared/family/update-child';
import { problemBody } from '../../shared/errors/problem';
import { startSession } from '../../shared/sessions/start-session';
import { newTraceId, runWithLogContext } from '../../shared/logging/log-context';
import type { User } from '../../shared/users/user';
import { findUserById } from '../../shared/users/user-store';
import { call, createFlowHarness, detailsOf, expectNoLeaks, type FlowHarness } from '../auth/flows/flow-harness';

/**
 * The section guard (contract section 4): adults pass, a child passes only for a section its parent
 * opened; a refusal is 403 forbidden, a log line with the child's userId and the section, and an
 * `authz_fail` audit row, all under the request's trace id.
 */

let h: FlowHarness;
let parent: User;
let child: User;
let childToken: string;

beforeAll(async () => {
  h = await createFlowHarness();
  parent = await h.insertAdult();
  const view = await h.createChild(parent, 'canary-kid-sections', '5803162', ['announcements', 'events']);
  const signedIn = await h.signInChild('canary-kid-sections', '5803162');
  if (!signedIn.ok) throw new Error('child sign-in refused');
  childToken = signedIn.started.token;
  const user = await findUserById(await h.services.database.get(), view.id);
  if (!user) throw new Error('child user missing');
  child = user;
});

afterAll(async () => {
  await h?.close();
});

describe('requireSection', () => {
  it('lets adults into every section without an audit row', async () => {
    const mark = h.auditMark();
    for (const section of ['announcements', 'events', 'groups', 'media'] as const) {
      expect(await requireSection(parent, section, h.services.corePorts)).toBeUndefined();
    }
    expect(h.auditAfter(mark)).toEqual([]);
  });

  it('lets a child into the sections its parent opened', async () => {
    const mark = h.auditMark();
    expect(await requireSection(child, 'announcements', h.services.corePorts)).toBeUndefined();
    expect(await requireSection(child, 'events', h.services.corePorts)).toBeUndefined();
    expect(h.auditAfter(mark)).toEqual([]);
  });

  it('refuses a child elsewhere: forbidden, a log line with the child’s userId and the section, an authz_fail row', async () => {
    const traceId = newTraceId();
    const mark = h.auditMark();
    const refused = await runWithLogContext({ traceId, userId: child.id }, () => requireSection(child, 'media', h.services.corePorts));
    expect(refused).toBeDefined();
    if (!refused) return;
    expect(problemBody(refused, traceId)).toMatchObject({ status: 403, code: 'forbidden', traceId });

    const lines = h.sink.withMessage('section access refused');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'info', userId: child.id, section: 'media', traceId });

    const rows = h.auditAfter(mark);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      eventType: 'authz_fail',
      outcome: 'failure',
      actorUserId: child.id,
      subjectUserId: child.id,
      targetType: 'section',
      targetId: 'media',
      traceId,
    });
    expect(detailsOf(rows[0])).toEqual({ section: 'media' });
  });

  it('reads the scopes fresh: the parent’s change applies to the very next call', async () => {
    expect(await requireSection(child, 'groups', h.services.corePorts)).toMatchObject({ code: 'forbidden' });
    expect((await updateChild(parent, child.id, { scopes: ['announcements', 'events', 'groups'] }, h.services.childAccountPorts)).ok).toBe(true);
    expect(await requireSection(child, 'groups', h.services.corePorts)).toBeUndefined();
    expect((await updateChild(parent, child.id, { scopes: ['announcements', 'events'] }, h.services.childAccountPorts)).ok).toBe(true);
    expect(await requireSection(child, 'groups', h.services.corePorts)).toMatchObject({ code: 'forbidden' });
  });
});

describe('the guard inside the HTTP pipeline (the real GET /api/v1/announcements)', () => {
  const announcementsEndpoint = () => httpHandlerOf(listAnnouncementsEndpoint, h.services);

  it('answers 403 problem+json, logged and audited under the request’s trace id with the child as userId', async () => {
    expect((await updateChild(parent, child.id, { scopes: ['events'] }, h.services.childAccountPorts)).ok).toBe(true);
    const traceId = newTraceId();
    const mark = h.auditMark();
    const answer = await call(
      announcementsEndpoint(),
      new HttpRequest({
        method: 'GET',
        url: 'http://localhost:7071/api/v1/announcements',
        headers: { authorization: `Bearer ${childToken}`, traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
      }),
      'announcements-list',
    );
    expect(answer.status).toBe(403);
    expect(answer.headers['Content-Type']).toBe('application/problem+json');
    expect(answer.body).toMatchObject({ code: 'forbidden', status: 403, traceId });

    const requestId = answer.headers['X-Request-Id'];
    const refusedLine = h.sink.lines.find((line) => line.message === 'section access refused' && line.requestId === requestId);
    expect(refusedLine).toMatchObject({ userId: child.id, section: 'announcements', traceId, endpoint: 'GET /api/v1/announcements' });
    const handled = h.sink.lines.find((line) => line.message === 'request handled' && line.requestId === requestId);
    expect(handled).toMatchObject({ userId: child.id, statusCode: 403, errorCode: 'forbidden' });

    expect(h.auditAfter(mark).map((row) => [row.eventType, row.actorUserId, row.targetId, row.traceId])).toEqual([
      ['authz_fail', child.id, 'announcements', traceId],
    ]);
  });

  it('lets an adult through, and a child once the section is opened; no session is refused before the guard', async () => {
    const get = (authorization?: string) =>
      call(
        announcementsEndpoint(),
        new HttpRequest({
          method: 'GET',
          url: 'http://localhost:7071/api/v1/announcements',
          ...(authorization ? { headers: { authorization } } : {}),
        }),
        'announcements-list',
      );
    const mark = h.auditMark();
    const noSession = await get();
    expect(noSession.status).toBe(401);
    expect(noSession.headers['WWW-Authenticate']).toBe('Bearer error="invalid_token"');

    const db = await h.services.database.get();
    const adultSession = await startSession(db, parent, h.clock.now(), { random: h.services.random, policy: h.services.sessionPolicy });
    h.canaries.add(adultSession.token, adultSession.token.split('.')[1] ?? '');
    expect((await get(`Bearer ${adultSession.token}`)).status).toBe(200);
    expect(h.auditAfter(mark)).toEqual([]);

    // The child with the section opened gets through.
    expect((await updateChild(parent, child.id, { scopes: ['announcements'] }, h.services.childAccountPorts)).ok).toBe(true);
    expect((await get(`Bearer ${childToken}`)).status).toBe(200);
    expect(h.auditAfter(mark).map((row) => row.eventType)).toEqual(['child_updated', 'consent_given', 'consent_withdrawn']);
  });
});

describe('leaks', () => {
  it('writes no token, PIN, username or hash to the log, the audit log or telemetry', () => {
    expectNoLeaks(h, 6);
  });
});
