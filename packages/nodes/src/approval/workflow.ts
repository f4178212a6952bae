import { durationToMs } from '../shared/duration';
import { defineWorkflowNode } from '../workflow-node';

interface RenderedApprovalConfig {
  title: string;
  message?: string;
  timeout?: string;
  on_timeout?: 'approve' | 'reject' | 'fail';
  notify_email?: string | string[];
  notify_chat?: string;
}

/** Addresses as given: a list, or one string with commas (checked by the e-mail runner). */
function addresses(value: string | string[] | undefined): string[] {
  const list = Array.isArray(value) ? value : String(value ?? '').split(',');
  return list.map((v) => String(v).trim()).filter((v) => v !== '');
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
