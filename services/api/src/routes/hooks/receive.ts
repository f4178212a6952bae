import { type ExecutionEngine, receiveHook, type SecretBox, type ServiceContext } from '@weft/domain';
import type { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { errorBody } from '../../error-handler';
import { clientIp } from '../../middleware/client-ip';

export interface HookRouteDeps {
  db: ServiceContext['db'];
  engine: ExecutionEngine;
  /** Opens the hook's signing secret. */
  secrets: SecretBox;
  maxBodyBytes: number;
  /** Requests per minute per hook (HOOK_RATE_LIMIT). */
  ratePerMinute: number;
  trustedProxyHops: number;
}

/**
 * `POST /api/hooks/:token`, outside /api/v1: no API key (the token is the credential), no CORS (senders
 * are servers). The body is read once as raw bytes, because an HMAC signature covers exactly those.
 */
export function registerReceiveHook(app: Hono, deps: HookRouteDeps) {
  app.post(
    '/api/hooks/:token',
    bodyLimit({
      maxSize: deps.maxBodyBytes,
      onError: (c) =>
        c.json(errorBody('payload_too_large', `The request body exceeds ${deps.maxBodyBytes} bytes.`), 413),
    }),
    async (c) => {
      const body = new Uint8Array(await c.req.arrayBuffer());
      const result = await receiveHook({
        db: deps.db,
        engine: deps.engine,
        secrets: deps.secrets,
        input: { token: c.req.param('token'), body, headers: { get: (name) => c.req.header(name) } },
        ratePerMinute: deps.ratePerMinute,
        ipAddress: clientIp(c, deps.trustedProxyHops),
      });
      return c.json(result, 202);
    },
  );
}
