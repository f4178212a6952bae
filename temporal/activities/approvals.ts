import {
  approvalLinkUrl,
  issueApprovalLink,
  type OpenApprovalInput,
  openApproval,
  settleApprovalAtDeadline,
} from '@weft/domain';
import { phoneIdentity } from '@weft/nodes';
import { loadNodeRunner, NodeRunError } from '@weft/nodes/runners';
import type { ActivityDeps } from './deps';
import { createNodeRunContext } from './node-run-context';
import { toActivityFailure, withHeartbeat } from './run-registered';

/** Who hears of a new approval besides the inbox: e-mail addresses (a signed link each), a chat number. */
export interface ApprovalNotify {
  email?: string[];
  /** An E.164 phone number; its replies `APPROVE <code>` / `REJECT <code>` decide. */
  chat?: string;
}

export type OpenApprovalArgs = Omit<OpenApprovalInput, 'chatRecipientHash'> & { notify?: ApprovalNotify };

/** Runs a messaging node type's runner (its outbox makes a retry send nothing twice) for a notification. */
async function runMessenger(
  deps: ActivityDeps,
  args: OpenApprovalArgs,
  type: 'action.email.send' | 'action.chat.send',
  stepKey: string,
  config: Record<string, unknown>,
) {
  const runner = await loadNodeRunner(type);
  if (!runner) throw new Error(`${type} has no runner`);
  const ctx = createNodeRunContext(deps, {
    organizationId: args.organizationId,
    executionId: args.executionId,
    nodeId: args.nodeId,
    stepKey,
    input: {},
  });
  try {
    await runner.run(config, ctx);
  } catch (error) {
    throw toActivityFailure(error);
  }
}

/** The approval's activities: record it and notify (once), and settle it at its deadline. */
export function createApprovalActivities(deps: ActivityDeps) {
  return {
    async openApproval(args: OpenApprovalArgs) {
      return withHeartbeat(async () => {
        const { notify, ...input } = args;
        const phone = notify?.chat ? phoneIdentity(notify.chat) : null;
        if (notify?.chat && !phone) {
          throw toActivityFailure(
            new NodeRunError('invalid_recipient', 'notify.chat is not a phone number', false),
          );
        }
        const opened = await openApproval(deps.db, {
          ...input,
          ...(phone ? { chatRecipientHash: phone.hash } : {}),
        });
        if (opened.outcome) return opened;
        const text = `${args.title}\n\n${args.message}`;
        for (const [index, recipient] of (notify?.email ?? []).entries()) {
          const token = await issueApprovalLink(deps.db, {
            organizationId: args.organizationId,
            approvalId: opened.id,
            recipient,
          });
          const link = approvalLinkUrl(deps.siteUrl ?? 'http://localhost:3000', opened.id, token);
          await runMessenger(deps, args, 'action.email.send', `${args.requestKey}:approval-email:${index}`, {
            to: recipient,
            subject: `Approval needed: ${args.title}`.replace(/[\r\n]+/g, ' ').slice(0, 250),
            body:
              `${text}\n\nApprove or reject: ${link}\n\n` +
              'The link opens a page where you confirm your decision; it works once and expires with the approval.',
          });
        }
        if (phone && opened.replyCode) {
          await runMessenger(deps, args, 'action.chat.send', `${args.requestKey}:approval-chat`, {
            to: phone.e164,
            message:
              `${text}\n\nReply "APPROVE ${opened.replyCode}" or "REJECT ${opened.replyCode}", ` +
              'optionally followed by a comment.',
          });
        }
        return opened;
      });
    },

    settleApprovalAtDeadline: (args: Parameters<typeof settleApprovalAtDeadline>[1]) =>
      settleApprovalAtDeadline(deps.db, args),
  };
}
