import { createTestDatabase, type TestDatabase } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendAgentMemory, loadAgentMemory } from '../src/agent-memory/memory';
import { createOrganization } from '../src/organizations/create';

/** Agent memory on a real PostgreSQL as the runtime role: windowed by turns, per organization, hashed keys. */
let t: TestDatabase;
let acme: string;
let globex: string;

beforeAll(async () => {
  t = await createTestDatabase();
  acme = (await createOrganization(t.app.db, { name: 'Acme' })).id;
  globex = (await createOrganization(t.app.db, { name: 'Globex' })).id;
}, 60_000);
afterAll(() => t?.drop());

const turn = (n: number) => [
  { role: 'user', parts: [{ type: 'text', text: `question ${n}` }] },
  { role: 'assistant', parts: [{ type: 'tool_call', id: `c${n}`, name: 'lookup', args: {} }] },
  { role: 'tool', parts: [{ type: 'tool_result', call_id: `c${n}`, content: 'ok' }] },
  { role: 'assistant', parts: [{ type: 'text', text: `answer ${n}` }] },
];

describe('agent memory', () => {
  it('keeps whole turns, answers the last `window` of them oldest first, and ignores a repeated write', async () => {
    const key = '+4915112345678';
    for (const n of [1, 2, 3]) {
      await appendAgentMemory(t.app.db, {
        organizationId: acme,
        key,
        stepKey: `exec:agent:${n}`,
        messages: turn(n),
      });
    }
    // A retried activity writes the same step again: nothing is added.
    await appendAgentMemory(t.app.db, {
      organizationId: acme,
      key,
      stepKey: 'exec:agent:3',
      messages: turn(99),
    });
    const window = await loadAgentMemory(t.app.db, { organizationId: acme, key, window: 2 });
    expect(window).toEqual([turn(2), turn(3)]);
    // Tool calls and their results stay together: every turn is whole.
    for (const messages of window) expect(messages).toHaveLength(4);
    const stored = await t.admin<{ key_hash: string }[]>`select distinct key_hash from agent_memory`;
    expect(stored.map((r) => r.key_hash)).not.toContain(key);
    expect(stored[0]?.key_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('another organization with the same key sees nothing, and concurrent writers get distinct turns', async () => {
    expect(
      await loadAgentMemory(t.app.db, { organizationId: globex, key: '+4915112345678', window: 20 }),
    ).toEqual([]);
    await Promise.all(
      [1, 2, 3, 4, 5].map((n) =>
        appendAgentMemory(t.app.db, {
          organizationId: globex,
          key: 'busy',
          stepKey: `e${n}:agent`,
          messages: turn(n),
        }),
      ),
    );
    expect(await loadAgentMemory(t.app.db, { organizationId: globex, key: 'busy', window: 20 })).toHaveLength(
      5,
    );
  });
});
