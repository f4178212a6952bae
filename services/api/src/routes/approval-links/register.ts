import {
  AppError,
  decideApproval,
  type ExecutionEngine,
  findApprovalByLink,
  type ServiceContext,
} from '@weft/domain';
import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { confirmPage, notFoundPage, resultPage } from './page';

export interface ApprovalLinkDeps {
  db: ServiceContext['db'];
  engine: ExecutionEngine;
}

/** The token sits in the URL: no referrer, no cache, no indexing, no framing, nothing but these styles. */
const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex',
  'x-content-type-options': 'nosniff',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

const PATH = '/api/approval-links/:id/:token';

async function page(c: Context, body: Promise<string> | string, status: 200 | 404 | 409 | 422) {
  return c.html(await body, status, PAGE_HEADERS);
}

/**
 * A signed approval link as e-mailed (`{site_url}/api/approval-links/<id>/<token>`), outside /api/v1:
 * the token is the credential. GET only shows the approval and a form (mail scanners that prefetch
 * links decide nothing); the form's POST decides, once, as the recipient the link was sent to.
 */
export function registerApprovalLinks(app: Hono, deps: ApprovalLinkDeps) {
  app.get(PATH, async (c) => {
    const found = await findApprovalByLink(deps.db, c.req.param('id'), c.req.param('token'));
    if (!found) return page(c, notFoundPage(), 404);
    return page(c, confirmPage(found.approval, found.recipient), 200);
  });

  app.post(PATH, bodyLimit({ maxSize: 16 * 1024 }), async (c) => {
    const found = await findApprovalByLink(deps.db, c.req.param('id'), c.req.param('token'));
    if (!found) return page(c, notFoundPage(), 404);
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const decision = form.decision;
    const comment = typeof form.comment === 'string' ? form.comment.trim().slice(0, 2000) : '';
    if (decision !== 'approve' && decision !== 'reject') {
      return page(c, confirmPage(found.approval, found.recipient), 422);
    }
    try {
      const decided = await decideApproval({
        ctx: { db: deps.db, organizationId: found.organizationId, actor: {} },
        input: {
          id: found.approval.id,
          decision,
          comment: comment === '' ? null : comment.replaceAll('\0', ''),
        },
        engine: deps.engine,
        via: 'email',
        decidedBy: found.recipient,
      });
      return page(c, resultPage({ ...found.approval, ...decided }), 200);
    } catch (error) {
      // Decided meanwhile (another recipient, the inbox) or the execution ended: show what stands.
      if (error instanceof AppError && error.code === 'conflict') {
        const now = await findApprovalByLink(deps.db, found.approval.id, c.req.param('token'));
        return page(c, resultPage(now?.approval ?? found.approval), 409);
      }
      throw error;
    }
  });
}
