import { durationToMs } from '../shared/duration';
import { defineWorkflowNode, WorkflowNodeError } from '../workflow-node';

/** As many addresses as the list form allows (schema.ts): each gets its own link and e-mail. */
export const MAX_APPROVAL_RECIPIENTS = 20;

interface RenderedApprovalConfig {
  title: string;
  message?: string;
  timeout?: string;
  on_timeout?: 'approve' | 'reject' | 'fail';
  notify_email?: string | string[];
  notify_chat?: string;
}

/**
 * Addresses as given: a list, or strings with commas (checked by the e-mail runner), at most
 * MAX_APPROVAL_RECIPIENTS once split: an expression may expand to hundreds, and the schema's limit
 * sees only the list form before rendering.
 */
function addresses(value: string | string[] | undefined): string[] {
  const list = (Array.isArray(value) ? value : [value ?? ''])
    .flatMap((v) => String(v).split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
  if (list.length > MAX_APPROVAL_RECIPIENTS) {
    throw new WorkflowNodeError(
      'too_many_recipients',
      `notify_email names ${list.length} addresses; at most ${MAX_APPROVAL_RECIPIENTS} may be notified.`,
    );
  }
  return list;
}

/**
 * action.approval: asks through the interpreter's approval mechanism (ctx.requestApproval, shared
 * with the agent's gate) and fires `approved` or `rejected` with the decision.
 */
export const approvalWorkflow = defineWorkflowNode({
  type: 'action.approval',
  runsIn: 'workflow',
  pauses: true,
  inReplay: 'recorded',
  // The chat recipient is a phone number: the step stores it masked (DESIGN §12.4).
  maskedFields: ['notify_chat'],
  handleOf: (output) => (output.decision === 'approve' ? 'approved' : 'rejected'),
  disabledHandle: 'approved',
  async execute(config, ctx) {
    const c = config as unknown as RenderedApprovalConfig;
    const email = addresses(c.notify_email);
    const chat = c.notify_chat?.trim();
    const notify = {
      ...(email.length > 0 ? { email } : {}),
      ...(chat ? { chat } : {}),
    };
    const result = await ctx.requestApproval({
      title: String(c.title),
      message: String(c.message ?? ''),
      ...(c.timeout ? { timeoutMs: durationToMs(c.timeout) } : {}),
      onTimeout: c.on_timeout ?? 'reject',
      ...(email.length > 0 || chat ? { notify } : {}),
    });
    return { output: result, handle: result.decision === 'approve' ? 'approved' : 'rejected' };
  },
});
