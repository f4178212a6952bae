import type { PresentedApproval } from '@weft/domain';
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

/**
 * The small pages of a signed approval link: no script, no outside resource, light and dark from
 * the reader's setting. Everything shown is escaped by `html`.
 */
const STYLE = `
:root { color-scheme: light dark; --bg: #f7f7f8; --card: #fff; --text: #1b1b1f; --muted: #5b5b66;
  --line: #d9d9e0; --approve: #17663a; --reject: #a3212a; }
@media (prefers-color-scheme: dark) { :root { --bg: #111114; --card: #1b1b20; --text: #ececf1;
  --muted: #a8a8b3; --line: #34343c; --approve: #4cc47f; --reject: #ff7b84; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); font: 16px/1.5 system-ui, sans-serif; }
main { max-width: 36rem; margin: 2rem auto; padding: 1.5rem; background: var(--card);
  border: 1px solid var(--line); border-radius: 12px; }
h1 { font-size: 1.35rem; margin: 0 0 .25rem; }
.meta { color: var(--muted); font-size: .9rem; margin: 0 0 1rem; }
.message { white-space: pre-wrap; margin: 0 0 1.25rem; }
label { display: block; font-weight: 600; margin-bottom: .35rem; }
textarea { width: 100%; min-height: 5rem; font: inherit; color: inherit; background: transparent;
  border: 1px solid var(--line); border-radius: 8px; padding: .5rem; }
.actions { display: flex; gap: .75rem; margin-top: 1rem; flex-wrap: wrap; }
button { font: inherit; font-weight: 600; padding: .6rem 1.2rem; border-radius: 8px; cursor: pointer;
  border: 2px solid currentColor; background: transparent; }
button.approve { color: var(--approve); } button.reject { color: var(--reject); }
@media (max-width: 40rem) { main { margin: 0; border-radius: 0; border-width: 0 0 1px; } }
`;

function layout(title: string, body: HtmlEscapedString | Promise<HtmlEscapedString>) {
  return html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="robots" content="noindex" />
    <title>${title} · Weft</title>
    <style>${STYLE}</style>
  </head>
  <body>
    <main>${body}</main>
  </body>
</html>`;
}

/** The confirm page: the approval and a form; only its POST decides (a mail scanner's GET decides nothing). */
export function confirmPage(approval: PresentedApproval, recipient: string) {
  const decided = approval.status !== 'pending';
  return layout(
    approval.title,
    html`<h1>${approval.title}</h1>
      <p class="meta">
        ${approval.workflow_name ?? 'A workflow'} asks ${recipient} for a decision${
          approval.expires_at ? html` before ${approval.expires_at.replace('T', ' ').slice(0, 16)} UTC` : ''
        }.
      </p>
      ${approval.message ? html`<p class="message">${approval.message}</p>` : ''}
      ${
        decided
          ? decidedNote(approval)
          : html`<form method="post">
              <label for="comment">Comment (optional)</label>
              <textarea id="comment" name="comment" maxlength="2000"></textarea>
              <div class="actions">
                <button class="approve" type="submit" name="decision" value="approve">Approve</button>
                <button class="reject" type="submit" name="decision" value="reject">Reject</button>
              </div>
            </form>`
      }`,
  );
}

function decidedNote(approval: PresentedApproval) {
  if (approval.status === 'pending') {
    return html`<p role="status"><strong>Nothing was decided:</strong> the execution waiting for this approval has ended.</p>`;
  }
  const status = approval.status === 'timed_out' ? 'timed out' : approval.status;
  return html`<p role="status"><strong>This approval was ${status}</strong>${
    approval.decided_by && approval.status !== 'timed_out' ? html` by ${approval.decided_by}` : ''
  }${approval.comment ? html`: “${approval.comment}”` : ''}.</p>`;
}

/** After the POST: what was decided, or why nothing was. */
export function resultPage(approval: PresentedApproval) {
  return layout(approval.title, html`<h1>${approval.title}</h1>${decidedNote(approval)}`);
}

export function notFoundPage() {
  return layout(
    'Link not valid',
    html`<h1>This link is not valid</h1>
      <p>It may have expired, or be mistyped. Decisions can still be made in Weft's Approvals inbox.</p>`,
  );
}
