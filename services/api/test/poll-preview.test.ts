import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// "Fetch once" of the editor's polling trigger block: one request as a poll makes it, answered with
// what it found; nothing stored, nothing run, SSRF rules as for a real poll.

let api: TestApi;
let guarded: TestApi;
let feed: Server;
let base = '';
let acme: { organizationId: string; key: string };

beforeAll(async () => {
  feed = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/hop') {
      res.writeHead(Number(url.searchParams.get('status')), { location: url.searchParams.get('to') ?? '/' });
      res.end();
    } else if (url.pathname === '/echo-headers') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.headers));
    } else if (req.url === '/orders') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          data: { items: [1, 2, 3, 4, 5, 6, 7].map((n) => ({ id: `o-${n}`, total: n * 10 })) },
        }),
      );
    } else {
      res.writeHead(500).end('broken');
    }
  });
  await new Promise<void>((r) => feed.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(feed.address() as AddressInfo).port}`;
  [api, guarded] = await Promise.all([createTestApi({ ssrfAllowlist: ['127.0.0.0/8'] }), createTestApi()]);
  acme = await api.createOrg('Acme');
});
afterAll(async () => {
  await Promise.all([api?.close(), guarded?.close()]);
  feed?.close();
});

const preview = (t: TestApi, key: string, trigger_config: unknown) =>
  t.request('POST', '/api/v1/triggers/polling/preview', { key, body: { trigger_config } });

describe('polling preview', () => {
  it('finds the items at items_path and shows the first five with their dedup keys; stores nothing', async () => {
    const res = await preview(api, acme.key, {
      url: `${base}/orders`,
      interval_minutes: 5,
      items_path: 'data.items',
      dedup_key: 'id',
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      status: string;
      item_count: number;
      items: { key: string; item: unknown }[];
    };
    expect(body.status).toBe('ok');
    expect(body.item_count).toBe(7);
    expect(body.items.map((i) => i.key)).toEqual(['o-1', 'o-2', 'o-3', 'o-4', 'o-5']);
    expect(body.items[0]?.item).toEqual({ id: 'o-1', total: 10 });
    const [seen] = await api.db.admin`select count(*)::int as n from poll_seen_items`;
    expect(seen?.n).toBe(0);
  });

  it('answers a failed fetch as an error, and bad config as a 422 naming the field', async () => {
    const failed = (await (
      await preview(api, acme.key, { url: `${base}/broken`, interval_minutes: 5 })
    ).json()) as {
      status: string;
      error: { code: string };
    };
    expect(failed).toMatchObject({ status: 'error', error: { code: 'http_status' } });
    const bad = await preview(api, acme.key, { url: 'ftp://x', interval_minutes: 5 });
    expect(bad.status).toBe(422);
    expect(
      ((await bad.json()) as { error: { fields: Record<string, string[]> } }).error.fields.url,
    ).toBeDefined();
  });

  it('refuses private addresses like a real poll, and needs workflows.update', async () => {
    const org = await guarded.createOrg('Guarded');
    const blocked = (await (
      await preview(guarded, org.key, { url: `${base}/orders`, interval_minutes: 5 })
    ).json()) as {
      status: string;
      error: { code: string };
    };
    expect(blocked).toMatchObject({ status: 'error', error: { code: 'ssrf_blocked' } });
    const viewer = await api.keyFor(acme.organizationId, ['workflows.view']);
    expect((await preview(api, viewer, { url: `${base}/orders`, interval_minutes: 5 })).status).toBe(403);
  });

  it("bad input: wrong types, a missing config, a huge body, another organization's credential", async () => {
    for (const body of [
      {},
      { trigger_config: 'https://x.test' },
      { trigger_config: { url: 42, interval_minutes: 5 } },
    ]) {
      const res = await api.request('POST', '/api/v1/triggers/polling/preview', { key: acme.key, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('validation_error');
    }
    const huge = await api.request('POST', '/api/v1/triggers/polling/preview', {
      key: acme.key,
      body: {
        trigger_config: { url: `${base}/orders`, interval_minutes: 5, pad: 'x'.repeat(2 * 1024 * 1024) },
      },
    });
    expect(huge.status).toBe(413);
    const other = await api.createOrg('Other');
    const created = await api.request('POST', '/api/v1/credentials', {
      key: other.key,
      body: { name: 'theirs', type: 'http_bearer', fields: { token: 'their-secret-token-123' } },
    });
    const theirs = ((await created.json()) as { id: string }).id;
    const res = await preview(api, acme.key, {
      url: `${base}/orders`,
      interval_minutes: 5,
      credential_id: theirs,
    });
    const body = (await res.json()) as { status: string; error: { code: string; message: string } };
    expect(body).toMatchObject({ status: 'error', error: { code: 'credential_invalid' } });
    expect(JSON.stringify(body)).not.toContain('their-secret-token-123');
  });

  it.each([302, 303, 307, 308])(
    'a cross-origin %i reaches the other origin without the credential header; same origin keeps it',
    async (status) => {
      const seen: Record<string, string | string[] | undefined>[] = [];
      const elsewhere = createServer((req, res) => {
        seen.push(req.headers);
        res.writeHead(200, { 'content-type': 'application/json' }).end('[{"id":1}]');
      });
      await new Promise<void>((r) => elsewhere.listen(0, '127.0.0.1', r));
      try {
        const created = await api.request('POST', '/api/v1/credentials', {
          key: acme.key,
          body: {
            name: `vendor ${status}`,
            type: 'http_header',
            fields: { name: 'X-Vendor-Key', value: 'vendor-secret-9876' },
          },
        });
        const credential_id = ((await created.json()) as { id: string }).id;
        const hop = (to: string) =>
          preview(api, acme.key, {
            url: `${base}/hop?status=${status}&to=${encodeURIComponent(to)}`,
            interval_minutes: 5,
            credential_id,
            headers: { 'X-Plain': 'kept' },
          });
        const crossed = await hop(`http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/feed`);
        expect(((await crossed.json()) as { status: string }).status).toBe('ok');
        expect(seen[0]?.['x-plain']).toBe('kept');
        expect(seen[0]?.['x-vendor-key']).toBeUndefined();
        const stayed = await hop('/echo-headers');
        expect(((await stayed.json()) as { items: { item: unknown }[] }).items[0]?.item).toMatchObject({
          'x-vendor-key': 'vendor-secret-9876',
          'x-plain': 'kept',
        });
      } finally {
        elsewhere.close();
      }
    },
  );
});
