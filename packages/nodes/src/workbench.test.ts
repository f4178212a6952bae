import { describe, expect, it } from 'vitest';
import { NODE_TYPES } from './registry';
import { workflowNodeOf } from './runtime';
import { disabledHandle, handleOfOutput, replaysFromRecording } from './workbench';

const kind = (type: string) => workflowNodeOf(type);

describe('the workbench traits of the node types', () => {
  it('reads the fired handle back from a recorded or pinned output', () => {
    expect(handleOfOutput(kind('action.condition'), { result: false })).toBe('false');
    expect(handleOfOutput(kind('action.condition'), { result: true })).toBe('true');
    expect(handleOfOutput(kind('action.switch'), { matched: 'vip' })).toBe('vip');
    expect(handleOfOutput(kind('action.switch'), {})).toBe('default');
    expect(handleOfOutput(kind('action.wait_for_event'), { timed_out: true, event: null })).toBe('timeout');
    expect(handleOfOutput(kind('action.loop'), { count: 2, results: [] })).toBe('done');
    expect(handleOfOutput(kind('action.http_request'), { status: 200 })).toBeUndefined();
  });

  it('a disabled branching step fires its first or fall-through output', () => {
    expect(disabledHandle(kind('action.condition'))).toBe('true');
    expect(disabledHandle(kind('action.switch'))).toBe('default');
    expect(disabledHandle(kind('action.loop'))).toBe('done');
    expect(disabledHandle(kind('action.transform'))).toBeUndefined();
  });

  it('every branching type says which handle a recording and a disabled step fire', () => {
    for (const { type } of NODE_TYPES) {
      const handles = workflowNodeOf(type);
      if (handles.handleOf === undefined) continue;
      expect(handles.disabledHandle, type).toBeTypeOf('string');
    }
  });

  it('replays every type that calls out or waits, and runs the computed ones', () => {
    for (const { type } of NODE_TYPES) {
      // Every activity type but the sandboxed code node reaches outside Weft.
      if (kind(type).runsIn === 'activity' && type !== 'action.code') {
        expect(replaysFromRecording(kind(type)), type).toBe(true);
      }
    }
    for (const type of [
      'action.transform',
      'action.condition',
      'action.switch',
      'action.loop',
      'action.merge',
      'action.code',
    ])
      expect(replaysFromRecording(kind(type)), type).toBe(false);
    for (const type of ['action.workflow.execute', 'action.delay', 'action.wait_for_event'])
      expect(replaysFromRecording(kind(type)), type).toBe(true);
  });
});
