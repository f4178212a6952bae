/** What a person decides about an approval (the API's `decision`). */
export type ApprovalDecision = 'approve' | 'reject';

/** What a decided approval tells the waiting execution (the approval signal's payload, the node's output). */
export interface ApprovalOutcome {
  approval_id: string;
  decision: ApprovalDecision;
  /** A user's e-mail, an API key's name, a link's or chat reply's recipient, or `timeout`. */
  decided_by: string;
  comment: string | null;
  decided_at: string;
  /** How it came: `app` (inbox, API), `email` (signed link), `chat` (reply), `timeout` (on_timeout). */
  via: 'app' | 'email' | 'chat' | 'timeout';
}

/** What to do when nobody decided before the deadline. */
export type OnTimeout = 'approve' | 'reject' | 'fail';
