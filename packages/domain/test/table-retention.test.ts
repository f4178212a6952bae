import { createTestDatabase, type TestDatabase } from '@weft/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pruneExpiredRows } from '../src/executions/table-retention';
import { createOrganization } from '../src/organizations/create';

/**
 * Retention of webhook deliveries, audit logs and polling dedup keys on a real PostgreSQL, pruning
 * as the runtime role (as the worker does): old rows go, recent ones stay, in every organization.
 */
let t: TestDatabase;
let orgs: string[];
let workflows: Record<string, string>;
let webhooks: Record<string, string>;

const days = (n: number) => `${n} days`;

beforeAll(async () => {
  t = await createTestDatabase();
  orgs = [
    (await createOrganization(t.app.db, { name: 'Acme' })).id,
    (await createOrganization(t.app.db, { name: 'Globex' })).id,
  ];
  workflows = {};
  webhooks = {};
  for (const org of orgs) {
    const [w] = await t.admin<{ id: string }[]>`
      insert into workflows (id, organization_id, name, trigger_type, trigger_config, status, nodes, edges)
      values (gen_random_uuid(), ${org}, 'poller', 'polling', '{}'::jsonb, 'active', '[]'::jsonb, '[]'::jsonb)
      returning id`;
    workflows[org] = w?.id as string;
    const [h] = await t.admin<{ id: string }[]>`
      insert into webhooks (id, organization_id, url, events, secret_ciphertext)
      values (gen_random_uuid(), ${org}, 'https://example.test/hook', '["execution.failed"]'::jsonb, 'x')
      returning id`;
    webhooks[org] = h?.id as string;
  }
}, 60_000);
afterAll(() => t?.drop());
beforeEach(async () => {
  await t.admin`delete from webhook_deliveries`;
  await t.admin`delete from audit_logs`;
  await t.admin`delete from poll_seen_items`;
  await t.admin`delete from poll_states`;
  await t.admin`delete from idempotency_keys`;
  await t.admin`delete from web_sessions`;
  await t.admin`delete from chat_inbound_messages`;
  await t.admin`delete from rate_limit_counters`;
  await t.admin`delete from agent_memory`;
});

async function delivery(org: string, key: string, status: string, ageDays: number) {
  await t.admin`
    insert into webhook_deliveries (id, organization_id, webhook_id, event, dedup_key, body, status, created_at)
    values (gen_random_uuid(), ${org}, ${webhooks[org] as string}, 'execution.failed', ${key}, '{}', ${status},
            now() - ${days(ageDays)}::interval)`;
}

async function audit(org: string, entity: string, ageDays: number) {
  await t.admin`
    insert into audit_logs (id, organization_id, action, entity_type, entity_id, created_at)
    values (gen_random_uuid(), ${org}, 'workflow.updated', 'workflow', ${entity}, now() - ${days(ageDays)}::interval)`;
}

async function seenKey(org: string, key: string, lastSeenDaysAgo: number) {
  await t.admin`
    insert into poll_seen_items (organization_id, workflow_id, dedup_key, created_at, last_seen_at)
    values (${org}, ${workflows[org] as string}, ${key}, now() - interval '400 days',
            now() - ${days(lastSeenDaysAgo)}::interval)`;
}

async function lastPoll(org: string, status: 'ok' | 'error', ageDays: number) {
  await t.admin`
    insert into poll_states (workflow_id, organization_id, last_polled_at, last_status)
    values (${workflows[org] as string}, ${org}, now() - ${days(ageDays)}::interval, ${status})`;
}

const left = async (
  table: 'webhook_deliveries' | 'audit_logs' | 'poll_seen_items' | 'chat_inbound_messages',
  column: string,
) =>
  (await t.admin<{ v: string }[]>`select ${t.admin(column)} as v from ${t.admin(table)} order by 1`).map(
    (r) => r.v,
  );

const retention = { executionRetentionDays: 30, auditLogRetentionDays: 365, batchSize: 2 };

describe('pruneExpiredRows', () => {
  it('deletes webhook deliveries that are over and older than EXECUTION_RETENTION_DAYS, in batches', async () => {
    for (const org of orgs) {
      await delivery(org, 'old-ok', 'succeeded', 40);
      await delivery(org, 'old-failed', 'failed', 31);
      await delivery(org, 'recent', 'succeeded', 29);
      // Not over yet: kept whatever the age (the sweeper still starts them).
      await delivery(org, 'old-pending', 'pending', 90);
      await delivery(org, 'old-retrying', 'retrying', 90);
    }
    const report = await pruneExpiredRows(t.app.db, retention);
    expect(report.webhook_deliveries).toBe(4);
    expect(await left('webhook_deliveries', 'dedup_key')).toEqual([
      'old-pending',
      'old-pending',
      'old-retrying',
      'old-retrying',
      'recent',
      'recent',
    ]);
  });

  it('deletes audit entries older than AUDIT_LOG_RETENTION_DAYS, though the runtime role cannot DELETE them', async () => {
    for (const org of orgs) {
      await audit(org, 'very-old', 800);
      await audit(org, 'old', 366);
      await audit(org, 'recent', 364);
    }
    await expect(t.app.sql`delete from audit_logs`).rejects.toThrow(/permission denied/);
    const report = await pruneExpiredRows(t.app.db, retention);
    expect(report.audit_logs).toBe(4);
    expect(await left('audit_logs', 'entity_id')).toEqual(['recent', 'recent']);
  });

  it('keeps everything with retention 0', async () => {
    await delivery(orgs[0] as string, 'old', 'succeeded', 4000);
    await audit(orgs[0] as string, 'old', 4000);
    const report = await pruneExpiredRows(t.app.db, { executionRetentionDays: 0, auditLogRetentionDays: 0 });
    expect(report).toMatchObject({ webhook_deliveries: 0, audit_logs: 0 });
    expect(await left('webhook_deliveries', 'dedup_key')).toEqual(['old']);
    expect(await left('audit_logs', 'entity_id')).toEqual(['old']);
  });

  it('deletes a poll key only once its item left the latest successful poll and was last seen over 30 days ago', async () => {
    const [acme, globex] = orgs as [string, string];
    await lastPoll(acme, 'ok', 0);
    await seenKey(acme, 'gone-long-ago', 31);
    await seenKey(acme, 'gone-recently', 20);
    // Listed by the latest poll (refreshed within the day before it), however old its first sighting.
    await seenKey(acme, 'still-listed', 0.5);
    // The latest poll failed: nothing is known about what the source lists now, so every key stays.
    await lastPoll(globex, 'error', 0);
    await seenKey(globex, 'unknown', 200);
    const report = await pruneExpiredRows(t.app.db, retention);
    expect(report.poll_seen_items).toBe(1);
    expect(await left('poll_seen_items', 'dedup_key')).toEqual(['gone-recently', 'still-listed', 'unknown']);
  });

  it('keeps the keys of a rarely polling workflow that its last poll still listed', async () => {
    const acme = orgs[0] as string;
    // A yearly poll: the key was refreshed by that poll, 200 days ago; it is still needed.
    await lastPoll(acme, 'ok', 200);
    await seenKey(acme, 'listed-by-last-poll', 200);
    await seenKey(acme, 'absent-from-last-poll', 300);
    await pruneExpiredRows(t.app.db, retention);
    expect(await left('poll_seen_items', 'dedup_key')).toEqual(['listed-by-last-poll']);
  });

  it('deletes expired idempotency records and web sessions past their lifetime, and only those', async () => {
    const acme = orgs[0] as string;
    for (const [key, expires] of [
      ['expired', '-1 minute'],
      ['long-expired', '-3 days'],
      ['live', '+5 minutes'],
    ]) {
      await t.admin`
        insert into idempotency_keys (organization_id, key, method, path, request_hash, state, response_body, expires_at)
        values (${acme}, ${key as string}, 'POST', '/api/v1/events', 'h', 'done', 'big body', now() + ${expires as string}::interval)`;
    }
    const [user] = await t.admin<{ id: string }[]>`
      insert into users (id, email, password_hash) values (gen_random_uuid(), ${`u${Date.now()}@example.com`}, 'x')
      returning id`;
    for (const [token, expires] of [
      ['ended', '-1 second'],
      ['current', '+1 hour'],
    ]) {
      await t.admin`
        insert into web_sessions (id, token_hash, user_id, expires_at)
        values (gen_random_uuid(), ${token as string}, ${user?.id as string}, now() + ${expires as string}::interval)`;
    }
    const report = await pruneExpiredRows(t.app.db, retention);
    expect(report.expired_records).toBe(3);
    expect(await t.admin`select key from idempotency_keys`).toEqual([{ key: 'live' }]);
    expect(await t.admin`select token_hash from web_sessions`).toEqual([{ token_hash: 'current' }]);
  });

  it('deletes inbound chat message ids received over 30 days ago, in every organization', async () => {
    for (const org of orgs) {
      for (const [id, age] of [
        ['wamid.old', 31],
        ['wamid.recent', 29],
      ] as const) {
        await t.admin`
          insert into chat_inbound_messages (organization_id, provider_message_id, created_at)
          values (${org}, ${id}, now() - ${days(age)}::interval)`;
      }
    }
    const report = await pruneExpiredRows(t.app.db, retention);
    expect(report.chat_inbound_messages).toBe(2);
    expect(await left('chat_inbound_messages', 'provider_message_id')).toEqual([
      'wamid.recent',
      'wamid.recent',
    ]);
  });

  it('deletes rate-limit buckets whose one-minute window ended over 10 minutes ago', async () => {
    for (const [bucket, age] of [
      ['ip:203.0.113.7:login', '11 minutes'],
      ['key:old', '2 days'],
      ['ip:203.0.113.8:login', '30 seconds'],
    ] as const) {
      await t.admin`
        insert into rate_limit_counters (bucket, window_start, count)
        values (${bucket}, now() - ${age}::interval, 3)`;
    }
    const report = await pruneExpiredRows(t.app.db, retention);
    expect(report.rate_limit_counters).toBe(2);
    expect(await t.admin`select bucket from rate_limit_counters`).toEqual([
      { bucket: 'ip:203.0.113.8:login' },
    ]);
  });

  it('deletes agent conversation turns older than 90 days, in every organization', async () => {
    for (const org of orgs) {
      for (const [seq, age] of [
        [1, 91],
        [2, 89],
      ] as const) {
        await t.admin`
          insert into agent_memory (organization_id, key_hash, seq, messages, step_key, created_at)
          values (${org}, 'k', ${seq}, '[]'::jsonb, ${`step-${seq}`}, now() - ${days(age)}::interval)`;
      }
    }
    const report = await pruneExpiredRows(t.app.db, retention);
    expect(report.agent_memory).toBe(2);
    expect(await t.admin`select seq::int from agent_memory order by 1`).toEqual([{ seq: 2 }, { seq: 2 }]);
  });
});
