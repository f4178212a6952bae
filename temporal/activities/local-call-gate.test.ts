import { describe, expect, it } from 'vitest';
import { LocalCallGate } from './local-call-gate';

describe('the local call gate', () => {
  it('lets an organization hold at most its share, and everyone together at most the total', () => {
    const gate = new LocalCallGate({ total: 5, perOrganization: 2 });
    const a = [gate.tryEnter('a'), gate.tryEnter('a')];
    expect(a.every(Boolean)).toBe(true);
    expect(gate.tryEnter('a')).toBeUndefined();
    const b = [gate.tryEnter('b'), gate.tryEnter('b')];
    const c = gate.tryEnter('c');
    expect(c).toBeDefined();
    // The total is reached: even an organization below its share waits for a place.
    expect(gate.tryEnter('d')).toBeUndefined();
    expect(gate.held).toBe(5);
    a[0]?.();
    expect(gate.tryEnter('a')).toBeDefined();
    for (const leave of [...b, c]) leave?.();
    expect(gate.held).toBe(2);
  });

  it('gives a place back once, however often its function is called', () => {
    const gate = new LocalCallGate({ total: 2, perOrganization: 2 });
    const leave = gate.tryEnter('a');
    leave?.();
    leave?.();
    expect(gate.held).toBe(0);
    expect([gate.tryEnter('a'), gate.tryEnter('a')].every(Boolean)).toBe(true);
    expect(gate.tryEnter('a')).toBeUndefined();
  });
});
