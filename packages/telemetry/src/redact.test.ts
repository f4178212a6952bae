import { describe, expect, it } from 'vitest';
import { createLogger } from './logger';
import { REDACTED, redact, redactText, rememberSecrets } from './redact';

/** Lines a fresh logger wrote, parsed and raw. */
function capture() {
  const raw: string[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => raw.push(line) } });
  return { logger, raw, parsed: () => raw.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

const BASIC = `Basic ${Buffer.from('alice:correct horse battery').toString('base64')}`;

describe('redact', () => {
  it('replaces secret-named fields at any depth, whatever their case or separator', () => {
    const out = redact({
      request: {
        headers: { Authorization: BASIC, 'Proxy-Authorization': 'x', 'X-Api-Key': 'k', Accept: 'json' },
      },
      a: {
        b: { c: { d: { e: { client_secret: 's', access_token: 't', Cookie: 'c', 'set-cookie': ['c'] } } } },
      },
      module: { app_secret: 'a', password: 'p', private_key: 'pk', host: 'smtp.example.test' },
      list: [{ token: 'x' }, { token: null }],
      flags: { password_set: true },
    });
    expect(out).toEqual({
      request: {
        headers: {
          Authorization: REDACTED,
          'Proxy-Authorization': REDACTED,
          'X-Api-Key': REDACTED,
          Accept: 'json',
        },
      },
      a: {
        b: {
          c: {
            d: {
              e: {
                client_secret: REDACTED,
                access_token: REDACTED,
                Cookie: REDACTED,
                'set-cookie': REDACTED,
              },
            },
          },
        },
      },
      module: { app_secret: REDACTED, password: REDACTED, private_key: REDACTED, host: 'smtp.example.test' },
      list: [{ token: REDACTED }, { token: null }],
      flags: { password_set: true },
    });
  });

  it('removes secret shapes from any string and keeps the rest readable', () => {
    const key = `weft_${'A1b2C3d4'.repeat(5)}xYz123`;
    const text = [
      `sent ${BASIC} and Bearer eyJhbGciOi.payload`,
      'challenge Basic realm="upstream"',
      `key ${key}, secret whsec_${Buffer.alloc(32, 7).toString('base64')}`,
      'db postgres://weft:s3cret@db.internal:5432/weft',
      'GET https://api.example.test/v1?page=2&access_token=abc123&X-Amz-Signature=ff&sig=1&code=9',
      'hook http://localhost:3000/api/hooks/Zm9vYmFyYmF6 and invite http://localhost:3000/invite/abcDEF',
      'body {"user":"al","password":"hunter22","api_key":"k-1"}',
    ].join('\n');
    const out = redactText(text);
    for (const secret of [
      BASIC.slice(6),
      'eyJhbGciOi.payload',
      key,
      'whsec_',
      's3cret',
      'abc123',
      'ff&',
      'Zm9vYmFyYmF6',
      'abcDEF',
      'hunter22',
      'k-1',
    ]) {
      expect(out).not.toContain(secret);
    }
    expect(out).toContain('challenge Basic realm="upstream"');
    expect(out).toContain('postgres://[redacted]@db.internal:5432/weft');
    expect(out).toContain(
      '?page=2&access_token=[redacted]&X-Amz-Signature=[redacted]&sig=[redacted]&code=[redacted]',
    );
    expect(out).toContain('"user":"al"');
  });

  it('replaces values remembered as secrets wherever they appear', () => {
    rememberSecrets(['an echoed password 42', 'short']);
    expect(redactText('upstream said: an echoed password 42!')).toBe(`upstream said: ${REDACTED}!`);
    // Values too short to be told from ordinary words are not remembered.
    expect(redactText('a short note')).toBe('a short note');
  });

  it('serializes errors with their cause chain through the same rules, and survives cycles', () => {
    const cause = Object.assign(new Error(`upstream refused ${BASIC}`), {
      response: { headers: { 'set-cookie': 'sid=1' }, status: 401 },
    });
    const error = Object.assign(new Error('step failed for https://bob:pw@x.test/', { cause }), {
      details: [{ headers: { authorization: BASIC } }],
    });
    const loop: Record<string, unknown> = { name: 'loop' };
    loop.self = loop;
    const out = JSON.stringify(redact({ error, loop }));
    expect(out).not.toContain(BASIC.slice(6));
    expect(out).not.toContain('sid=1');
    expect(out).not.toContain('bob:pw');
    expect(out).toContain('"status":401');
    expect(out).toContain('"self":"[circular]"');
    expect(JSON.parse(out).error.cause.type).toBe('Error');
  });
});

describe('the logger', () => {
  it('redacts fields, errors, their causes and the message of every line', () => {
    const { logger, raw, parsed } = capture();
    const cause = new Error(`echo ${BASIC}`);
    logger.warn(
      {
        err: new Error('HTTP 401', { cause }),
        upstream: { headers: { 'www-authenticate': 'Basic realm="x"' } },
      },
      'retrying with %s',
      'Bearer abcdefghijkl',
    );
    logger.error(new Error('connect postgres://u:topsecret@h/db'));
    const text = raw.join('');
    expect(text).not.toContain(BASIC.slice(6));
    expect(text).not.toContain('abcdefghijkl');
    expect(text).not.toContain('topsecret');
    const [first, second] = parsed();
    expect(first?.msg).toBe(`retrying with Bearer ${REDACTED}`);
    expect(first?.upstream).toEqual({ headers: { 'www-authenticate': 'Basic realm="x"' } });
    expect((first?.err as { cause?: { message: string } } | undefined)?.cause?.message).toBe(
      `echo Basic ${REDACTED}`,
    );
    expect(second?.msg).toBe(`connect postgres://${REDACTED}@h/db`);
  });
});
