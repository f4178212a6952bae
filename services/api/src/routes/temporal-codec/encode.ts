import { validationError } from '@weft/domain';
import type { Hono } from 'hono';
import { type CodecEndpointDeps, CodecRequest, codecAccess, fromJson, toJson } from './access';

/** POST /api/temporal-codec/encode: the UI encodes what an engineer sends (e.g. a signal's input). */
export function registerCodecEncode(app: Hono, deps: CodecEndpointDeps) {
  app.post('/api/temporal-codec/encode', async (c) => {
    const refused = codecAccess(c, deps);
    if (refused) return refused;
    const parsed = CodecRequest.safeParse(await c.req.json().catch(() => null));
    if (!parsed.success) throw validationError({ payloads: ['must be Temporal payloads in JSON form'] });
    const encoded = await deps.codec.encode(parsed.data.payloads.map(fromJson));
    return c.json({ payloads: encoded.map(toJson) });
  });
}
