import { timingSafeEqual } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { z } from 'zod';
import { errorBody } from '../../error-handler';
import { cameThroughProxy, clientIp } from '../../middleware/client-ip';

export interface CodecEndpointDeps {
  codec: PayloadCodec;
  /** The Temporal Web UI's URL: the only browser origin allowed to call the endpoint. */
  temporalUiUrl: string;
  /** TEMPORAL_CODEC_TOKEN: an operator credential; unset = local callers only, when they are trusted. */
  token?: string;
  /** HOST, the interface the API listens on; unset counts as reachable from other machines. */
  host?: string;
  trustedProxyHops: number;
}

/** Temporal's remote-codec protocol: payloads in proto3 JSON (metadata values and data in base64). */
export const CodecRequest = z.object({
  payloads: z
    .array(
      z.object({
        metadata: z.record(z.string(), z.string().max(1024)).default({}),
        data: z.string().default(''),
      }),
    )
    .max(1000),
});

export const fromJson = (payload: z.infer<typeof CodecRequest>['payloads'][number]): Payload => ({
  metadata: Object.fromEntries(
    Object.entries(payload.metadata).map(([key, value]) => [key, Buffer.from(value, 'base64')]),
  ),
  data: Buffer.from(payload.data, 'base64'),
});

export const toJson = (payload: Payload) => ({
  metadata: Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([key, value]) => [
      key,
      Buffer.from(value ?? new Uint8Array()).toString('base64'),
    ]),
  ),
  data: Buffer.from(payload.data ?? []).toString('base64'),
});

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/** Whether a listen address is loopback only: then no other machine can open a connection. */
export function isLoopbackHost(host: string | undefined): boolean {
  const bare = host
    ?.trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  return bare === 'localhost' || (bare !== undefined && LOOPBACK.test(bare));
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Who may decode (every organization's payloads): whoever holds TEMPORAL_CODEC_TOKEN (as a bearer
 * token), or a caller on this machine, but only while the API listens on loopback alone and no proxy
 * is declared (HOST 127.0.0.1, TRUST_PROXY_HOPS 0: the `weft up` case, the engineer's browser on
 * localhost). Once the API listens on other interfaces, or sits behind a proxy, a loopback socket
 * address proves nothing (a reverse proxy on the same host connects from 127.0.0.1 on behalf of
 * anyone), so the token is required. A request with proxy headers is never taken as local either.
 * A browser page from any origin other than the Temporal UI is refused outright.
 */
export function codecAccess(c: Context, deps: CodecEndpointDeps): Response | undefined {
  const origin = c.req.header('origin');
  if (origin && origin !== new URL(deps.temporalUiUrl).origin) {
    return c.json(errorBody('forbidden', 'This origin may not use the codec endpoint.'), 403);
  }
  const bearer = c.req.header('authorization')?.match(/^Bearer\s+(.+)$/i)?.[1];
  if (deps.token && bearer) {
    return sameSecret(bearer, deps.token)
      ? undefined
      : c.json(errorBody('unauthenticated', 'Invalid codec token.'), 401);
  }
  const localCallersTrusted =
    isLoopbackHost(deps.host) && deps.trustedProxyHops === 0 && !cameThroughProxy(c);
  const ip = localCallersTrusted ? clientIp(c, 0) : undefined;
  if (ip && LOOPBACK.test(ip)) return undefined;
  return c.json(
    errorBody(
      'unauthenticated',
      'The codec endpoint needs TEMPORAL_CODEC_TOKEN as a bearer token (without it, only a caller on ' +
        'this machine, while the API listens on loopback alone with TRUST_PROXY_HOPS=0).',
    ),
    401,
  );
}

/**
 * The UI sends whole histories' payloads in one request (each up to Temporal's 2 MB, base64 adds a
 * third): 8 MiB, well above what one page of history holds.
 */
export const CODEC_MAX_BODY_BYTES = 8 * 1024 * 1024;

/** CORS for the Temporal UI (it calls the endpoint from the engineer's browser), and the body limit. */
export function registerCodecCors(app: Hono, deps: CodecEndpointDeps) {
  app.use(
    '/api/temporal-codec/*',
    bodyLimit({
      maxSize: CODEC_MAX_BODY_BYTES,
      onError: (c) =>
        c.json(
          errorBody('payload_too_large', `The request body exceeds ${CODEC_MAX_BODY_BYTES} bytes.`),
          413,
        ),
    }),
  );
  app.use(
    '/api/temporal-codec/*',
    cors({
      origin: new URL(deps.temporalUiUrl).origin,
      allowMethods: ['POST', 'OPTIONS'],
      allowHeaders: ['Content-Type', 'Authorization', 'X-Namespace'],
      credentials: true,
      maxAge: 600,
    }),
  );
}
