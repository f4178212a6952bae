import { describe, expect, it } from 'vitest';
import { NODE_RUNS_IN } from './runs-in';
import { disabledHandle, handleOfOutput, isReplayedInReplays } from './workbench';

describe('the workbench tables', () => {
  it('reads the fired handle back from a recorded or pinned output', () => {
    expect(handleOfOutput('action.condition', { result: false })).toBe('false');
    expect(handleOfOutput('action.condition', { result: true })).toBe('true');
    expect(handleOfOutput('action.switch', { matched: 'vip' })).toBe('vip');
    expect(handleOfOutput('action.switch', {})).toBe('default');
    expect(handleOfOutput('action.wait_for_event', { timed_out: true, event: null })).toBe('timeout');
    expect(handleOfOutput('action.loop', { count: 2, results: [] })).toBe('done');
    expect(handleOfOutput('action.http_request', { status: 200 })).toBeUndefined();
  });

  it('a disabled branching step fires its first or fall-through output', () => {
    expect(disabledHandle('action.condition')).toBe('true');
    expect(disabledHandle('action.switch')).toBe('default');
    expect(disabledHandle('action.loop')).toBe('done');
    expect(disabledHandle('action.transform')).toBeUndefined();
  });

  it('replays every type that calls out or waits, and runs the computed ones', () => {
    for (const [type, runsIn] of Object.entries(NODE_RUNS_IN)) {
      // Every activity type but the sandboxed code node reaches outside Weft.
      if (runsIn === 'activity' && type !== 'action.code') expect(isReplayedInReplays(type), type).toBe(true);
    }
    for (const type of [
      'action.transform',
      'action.condition',
      'action.switch',
      'action.loop',
      'action.merge',
      'action.code',
    ])
      expect(isReplayedInReplays(type), type).toBe(false);
    for (const type of ['action.workflow.execute', 'action.delay', 'action.wait_for_event'])
      expect(isReplayedInReplays(type), type).toBe(true);
  });
});
