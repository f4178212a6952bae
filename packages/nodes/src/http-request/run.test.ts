import { describe, expect, it } from 'vitest';
import { nodeRunFailure, runContext } from '../../test/run-context';
import { type NodeHttpClient, NodeRunError } from '../runner';
import { httpRequestRunner } from './run';

type SentRequest = Parameters<NodeHttpClient['request']>[0];

/** A context whose HTTP client records what it was asked and answers `answer`. */
// credential_id is a UUID in the schema.
const BEARER = '00000000-0000-4000-8000-000000000001';
const HEADER = '00000000-0000-4000-8000-000000000002';
const BASIC = '00000000-0000-4000-8000-000000000003';
const MISSING = '00000000-0000-4000-8000-000000000009';
const CREDENTIALS: Record<string, { type: string; fields: Record<string, string> }> = {
  [BEARER]: { type: 'http_bearer', fields: { token: 'tok-123' } },
  [HEADER]: { type: 'http_header', fields: { name: 'X-Api-Key', value: 'key-456' } },
  [BASIC]: { type: 'http_basic', fields: { username: 'ann', password: 'p:w' } },
};

function contextAnswering(answer: (req: SentRequest) => Awaited<ReturnType<NodeHttpClient['request']>>) {
  const sent: SentRequest[] = [];
  const ctx = runContext({
    stepKey: 'exec:call',
    nodeId: 'call',
    http: {
      async request(req) {
        sent.push(req);
        return answer(req);
      },
    },
    openCredential: async (id, types) => {
      const credential = CREDENTIALS[id];
      if (!credential || !types.includes(credential.type))
        throw new NodeRunError('credential_invalid', id, false);
      return credential;
    },
  });
  return { ctx, sent };
}

const json = (status: number, body: unknown) => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: new TextEncoder().encode(JSON.stringify(body)),
});

describe('httpRequestRunner', () => {
  it('sends query, JSON body and the step key as Idempotency-Key, and parses a JSON answer', async () => {
    const { ctx, sent } = contextAnswering(() => json(201, { id: 7 }));
    const output = await httpRequestRunner.run(
      { method: 'POST', url: 'https://api.example.com/items', query: { a: '1' }, body: { name: 'x' } },
      ctx,
    );
    expect(output).toEqual({ status: 201, headers: { 'content-type': 'application/json' }, body: { id: 7 } });
    expect(sent[0]).toMatchObject({
      method: 'POST',
      url: 'https://api.example.com/items?a=1',
      body: '{"name":"x"}',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'exec:call' },
      maxRedirects: 5,
    });
  });

  it('sends no Idempotency-Key on GET or when turned off', async () => {
    const { ctx, sent } = contextAnswering(() => json(200, {}));
    await httpRequestRunner.run({ url: 'https://api.example.com/' }, ctx);
    await httpRequestRunner.run(
      { method: 'POST', url: 'https://api.example.com/', send_idempotency_key: false },
      ctx,
    );
    expect(sent.map((r) => r.headers?.['idempotency-key'])).toEqual([undefined, undefined]);
  });

  it('fails on a non-2xx answer: retryable for 5xx/429/408, final for other 4xx, with the answer as details', async () => {
    for (const [status, retryable] of [
      [503, true],
      [429, true],
      [408, true],
      [404, false],
      [400, false],
    ] as const) {
      const { ctx } = contextAnswering(() => json(status, { error: 'no' }));
      const error = await nodeRunFailure(httpRequestRunner.run({ url: 'https://api.example.com/' }, ctx));
      expect([error.code, error.retryable, error.message]).toEqual([
        'http_status',
        retryable,
        `HTTP ${status} from api.example.com`,
      ]);
      expect(error.details).toMatchObject({ status, body: { error: 'no' } });
    }
  });

  it('returns a non-2xx answer as output when fail_on_status is false', async () => {
    const { ctx } = contextAnswering(() => json(404, { error: 'missing' }));
    const output = await httpRequestRunner.run(
      { url: 'https://api.example.com/', fail_on_status: false },
      ctx,
    );
    expect(output).toMatchObject({ status: 404, body: { error: 'missing' } });
  });

  it("maps the guarded client's own errors: timeouts and network errors retry, a refused target does not", async () => {
    for (const [code, retryable] of [
      ['timeout', true],
      ['network_error', true],
      ['ssrf_blocked', false],
    ] as const) {
      const { ctx } = contextAnswering(() => {
        throw Object.assign(new Error(`client said ${code}`), { name: 'OutboundHttpError', code });
      });
      const error = await nodeRunFailure(httpRequestRunner.run({ url: 'https://api.example.com/' }, ctx));
      expect([error.code, error.retryable, error.message]).toEqual([code, retryable, `client said ${code}`]);
    }
  });

  it("adds the credential's header at send time, replacing a plain header of the same name", async () => {
    const { ctx, sent } = contextAnswering(() => json(200, {}));
    await httpRequestRunner.run({ url: 'https://a.example/', credential_id: BEARER }, ctx);
    await httpRequestRunner.run(
      { url: 'https://a.example/', credential_id: HEADER, headers: { 'x-api-KEY': 'plain', Accept: 'x/y' } },
      ctx,
    );
    await httpRequestRunner.run({ url: 'https://a.example/', credential_id: BASIC }, ctx);
    expect(sent[0]?.headers).toEqual({ authorization: 'Bearer tok-123' });
    expect(sent[1]?.headers).toEqual({ 'x-api-key': 'key-456', Accept: 'x/y' });
    expect(sent[2]?.headers?.authorization).toBe(`Basic ${Buffer.from('ann:p:w').toString('base64')}`);
    // Marked secret, so the client never carries them on to another origin after a redirect.
    expect(sent.map((r) => r.sensitiveHeaders)).toEqual([
      ['authorization'],
      ['x-api-key'],
      ['authorization'],
    ]);
  });

  it('fails finally when the credential is gone or of another type', async () => {
    const { ctx, sent } = contextAnswering(() => json(200, {}));
    const error = await nodeRunFailure(
      httpRequestRunner.run({ url: 'https://a.example/', credential_id: MISSING }, ctx),
    );
    expect([error.code, error.retryable]).toEqual(['credential_invalid', false]);
    expect(sent).toEqual([]);
  });

  it('lets an unexpected error through unchanged (the activity retries it)', async () => {
    const boom = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const { ctx } = contextAnswering(() => {
      throw boom;
    });
    await expect(httpRequestRunner.run({ url: 'https://api.example.com/' }, ctx)).rejects.toBe(boom);
  });
});
