import { validationError } from '@weft/domain';
import type { Hono } from 'hono';
import { type CodecEndpointDeps, CodecRequest, codecAccess, fromJson, toJson } from './access';

/**
 * POST /api/temporal-codec/decode: the Temporal Web UI's remote codec, so engineers read decrypted
 * trigger data and step outputs in the UI (`temporal server start-dev --ui-codec-endpoint`).
 */
export function registerCodecDecode(app: Hono, deps: CodecEndpointDeps) {
  app.post('/api/temporal-codec/decode', async (c) => {
    const refused = codecAccess(c, deps);
    if (refused) return refused;
    const parsed = CodecRequest.safeParse(await c.req.json().catch(() => null));
    if (!parsed.success) throw validationError({ payloads: ['must be Temporal payloads in JSON form'] });
    // Everything decode can fail on is in the request (a tampered payload, another key's payload).
    const decoded = await deps.codec.decode(parsed.data.payloads.map(fromJson)).catch(() => {
      throw validationError({
        payloads: ['cannot be decrypted with this APP_KEY (altered, or sealed with another key)'],
      });
    });
    return c.json({ payloads: decoded.map(toJson) });
  });
}
