import type { AgentRuntime } from '../src/ai-agent/contract';
import type {
  ApprovalRequest,
  ApprovalResult,
  ReceivedEvent,
  WorkflowNodeContext,
} from '../src/workflow-node';

/** What a fake context saw: the calls a workflow.ts made, in order. */
export type ContextCall =
  | { call: 'pause' }
  | { call: 'sleep'; ms: number }
  | { call: 'checkpoint' }
  | { call: 'waitUntil'; timeoutMs: number }
  | { call: 'walk'; item: unknown; index: number; count: number }
  | { call: 'prepare'; workflowId: string; payload: unknown }
  | { call: 'start'; executionId: string }
  | { call: 'run'; executionId: string }
  | { call: 'requestApproval'; request: ApprovalRequest };

/**
 * A WorkflowNodeContext for unit tests of workflow.ts modules: timers resolve at once, a wait sees
 * the events given (and times out when none matches), loop bodies return `walk(item)`, child
 * executions are numbered. `calls` records what the node asked of the interpreter, in order.
 */
export function fakeWorkflowContext(
  options: {
    liveInputs?: Record<string, unknown>;
    events?: ReceivedEvent[];
    walk?: (item: unknown, index: number) => unknown;
    childStatus?: string;
    outgoingPayload?: unknown;
    agent?: AgentRuntime;
    /** What a requested approval resolves with (default: approved in the app). */
    approval?: Partial<ApprovalResult>;
  } = {},
): WorkflowNodeContext & { calls: ContextCall[] } {
  const calls: ContextCall[] = [];
  let children = 0;
  return {
    calls,
    liveInputs: () => options.liveInputs ?? {},
    async pause(during) {
      calls.push({ call: 'pause' });
      await during();
    },
    async sleep(ms) {
      calls.push({ call: 'sleep', ms });
    },
    async checkpoint() {
      calls.push({ call: 'checkpoint' });
    },
    async waitUntil(test, timeoutMs) {
      calls.push({ call: 'waitUntil', timeoutMs });
      return test();
    },
    receivedEvents: options.events ?? [],
    failure: (message, code) => Object.assign(new Error(message), { code }),
    async walkLoopBody(item, index, count) {
      calls.push({ call: 'walk', item, index, count });
      return options.walk ? options.walk(item, index) : item;
    },
    outgoingPayload: options.outgoingPayload ?? { from: 'trigger' },
    async requestApproval(request) {
      calls.push({ call: 'requestApproval', request });
      return {
        approval_id: 'approval-1',
        decision: 'approve',
        decided_by: 'ada@example.com',
        comment: null,
        decided_at: '2026-01-01T00:00:00.000Z',
        via: 'app',
        timed_out: false,
        ...options.approval,
      };
    },
    children: {
      async prepare(workflowId, payload) {
        calls.push({ call: 'prepare', workflowId, payload });
        return `child-${++children}`;
      },
      async start(executionId) {
        calls.push({ call: 'start', executionId });
      },
      async run(executionId) {
        calls.push({ call: 'run', executionId });
        return { status: options.childStatus ?? 'success' };
      },
    },
    get agent(): AgentRuntime {
      if (!options.agent) throw new Error('this fake context has no agent runtime');
      return options.agent;
    },
  };
}
