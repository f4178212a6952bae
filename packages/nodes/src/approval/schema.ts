import { z } from 'zod';
import { Duration, E164OrTemplate, Template } from '../common';
import { defineNodeType } from '../define';
import { approvalWorkflow } from './workflow';

/** action.approval (DESIGN §14) plus who hears of it besides the web app's Approvals inbox. */
export const ApprovalConfig = z
  .object({
    title: Template.min(1).max(500),
    message: Template.max(10_000).default(''),
    /** How long to wait; absent waits for ever. */
    timeout: Duration.optional(),
    on_timeout: z.enum(['approve', 'reject', 'fail']).default('reject'),
    /** E-mail addresses (a list, or one string with commas; may be expressions): a signed link each. */
    notify_email: z.union([Template.min(1), z.array(Template.min(1)).min(1).max(20)]).optional(),
    /** A phone number (E.164, may be an expression) reached through the chat module: its replies decide. */
    notify_chat: E164OrTemplate.optional(),
  })
  .strict();

export const approval = defineNodeType({
  type: 'action.approval',
  name: 'Approval',
  category: 'flow',
  description:
    'Waits for a person to approve or reject (Approvals inbox, e-mailed link or chat reply), or the timeout.',
  icon: 'hand',
  config: ApprovalConfig,
  output: z.object({
    approval_id: z.string(),
    decision: z.enum(['approve', 'reject']),
    decided_by: z.string(),
    comment: z.string().nullable(),
    decided_at: z.string(),
    via: z.enum(['app', 'email', 'chat', 'timeout']),
    timed_out: z.boolean(),
  }),
  outputs: ['approved', 'rejected'],
  workflow: approvalWorkflow,
});
