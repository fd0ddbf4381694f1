import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createIncidentRecord, runIncidentCommand } from '../../scripts/incident';
import { loadAlerts, ROOT } from './alert-catalogue';

const alerts = loadAlerts();

describe('runbooks (docs/runbooks/)', () => {
  const paging = alerts.filter((alert) => alert.actionGroup === 'paging');

  it('exist for every paging alert, with what fired, the queries and the first steps', () => {
    expect(paging.length).toBeGreaterThanOrEqual(6);
    for (const alert of paging) {
      expect(alert.runbook, alert.name).toBeDefined();
      const file = path.join(ROOT, alert.runbook ?? '');
      expect(existsSync(file), `${alert.name}: ${alert.runbook}`).toBe(true);
      const text = readFileSync(file, 'utf8');
      for (const section of ['## What fired', '## Investigate', '## First steps']) expect(text, `${alert.runbook}: ${section}`).toContain(section);
      expect(text, `${alert.runbook} names ${alert.name}`).toContain(alert.name);
      expect(text).toContain('```kusto');
    }
  });

  it('exist for each critical alert of the spec', () => {
    const specCritical = alerts.filter((alert) => alert.implements.some((row) => row.table === 'critical'));
    expect(new Set(specCritical.flatMap((alert) => alert.implements.filter((row) => row.table === 'critical').map((row) => row.row))).size).toBe(5);
    expect(specCritical.filter((alert) => !alert.runbook)).toEqual([]);
  });
});

describe('incident records (docs/incidents/, npm run incident)', () => {
  const template = readFileSync(path.join(ROOT, 'docs/incidents/TEMPLATE.md'), 'utf8');
  let root: string | undefined;

  /** A scratch repository root holding what the command reads. */
  function scratchRoot(): string {
    root = mkdtempSync(path.join(tmpdir(), 'incident-'));
    cpSync(path.join(ROOT, 'infra/alerts'), path.join(root, 'infra/alerts'), { recursive: true });
    cpSync(path.join(ROOT, 'docs/incidents/TEMPLATE.md'), path.join(root, 'docs/incidents/TEMPLATE.md'));
    return root;
  }

  afterEach(() => {
    if (root) rmSync(root, { recursive: true, force: true });
    root = undefined;
  });

  it('has a template with the spec\'s parts: alert time and date, root cause, resolution steps, follow-up items', () => {
    for (const part of ['## Alert time and date', '## Root cause', '## Resolution steps', '## Follow-up items']) expect(template).toContain(part);
  });

  it('creates a dated record from the template, filled with the alert', () => {
    const dir = scratchRoot();
    const result = createIncidentRecord({
      alert: 'database-unreachable',
      now: new Date('2026-03-04T10:20:30Z'),
      firedAt: new Date('2026-03-04T09:58:00Z'),
      rootDir: dir,
    });
    expect(result).toEqual({ ok: true, file: 'docs/incidents/2026-03-04-database-unreachable.md' });
    const record = readFileSync(path.join(dir, 'docs/incidents/2026-03-04-database-unreachable.md'), 'utf8');
    expect(record).not.toMatch(/\{\{\w+\}\}/);
    expect(record).toContain('# Incident: Database unreachable (2026-03-04)');
    expect(record).toContain('- Fired (UTC): 2026-03-04T09:58:00.000Z');
    expect(record).toContain('docs/runbooks/database-unreachable.md');
    expect(record).toContain('## Root cause');
  });

  it('never overwrites: a second page the same day gets -2', () => {
    const dir = scratchRoot();
    const now = new Date('2026-03-04T10:00:00Z');
    createIncidentRecord({ alert: 'auth-failure-spike', now, rootDir: dir });
    expect(createIncidentRecord({ alert: 'auth-failure-spike', now, rootDir: dir })).toEqual({
      ok: true,
      file: 'docs/incidents/2026-03-04-auth-failure-spike-2.md',
    });
  });

  it('refuses an unknown alert, listing the paging ones', () => {
    const dir = scratchRoot();
    const result = createIncidentRecord({ alert: 'no-such-alert', now: new Date(), rootDir: dir });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toContain('api-error-rate-critical');
    expect(createIncidentRecord({ alert: '../escape', now: new Date(), rootDir: dir }).ok).toBe(false);
  });

  it('runs as a command: prints the file, or the usage with exit code 2', () => {
    const dir = scratchRoot();
    const out: string[] = [];
    const io = { rootDir: dir, now: new Date('2026-05-06T07:00:00Z'), stdout: (t: string) => out.push(t), stderr: (t: string) => out.push(t) };
    expect(runIncidentCommand(['api-error-rate-critical', '--fired-at', '2026-05-06T06:55:00Z'], io)).toBe(0);
    expect(out.join('')).toBe('docs/incidents/2026-05-06-api-error-rate-critical.md\n');
    expect(runIncidentCommand([], io)).toBe(2);
    expect(runIncidentCommand(['api-error-rate-critical', '--fired-at', 'yesterday'], io)).toBe(1);
  });
});
