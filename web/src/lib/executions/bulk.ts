import { ApiFailure, api, call } from '$api/client';

/**
 * Bulk actions on the executions list (like n8n's): which selected executions an action applies to,
 * and running it one execution at a time through the same endpoints a single click uses, so each
 * refusal keeps its own explanation.
 */
export type BulkAction = 'retry' | 'cancel' | 'delete';

interface Selected {
  id: string;
  status: string;
  mode?: string;
}

const APPLIES: Record<BulkAction, (e: Selected) => boolean> = {
  retry: (e) => e.mode !== 'test' && (e.status === 'failed' || e.status === 'partial'),
  cancel: (e) => ['pending', 'running', 'waiting', 'failed'].includes(e.status),
  delete: (e) => ['success', 'partial', 'cancelled'].includes(e.status),
};

export const BULK_LABELS: Record<BulkAction, { verb: string; done: string; permission: string }> = {
  retry: { verb: 'Retry', done: 'retried', permission: 'executions.retry' },
  cancel: { verb: 'Cancel', done: 'cancelled', permission: 'executions.cancel' },
  delete: { verb: 'Delete', done: 'deleted', permission: 'executions.delete' },
};

/** The selected executions an action applies to, and how many it leaves as they are. */
export function bulkTargets(action: BulkAction, selected: readonly Selected[]) {
  const targets = selected.filter(APPLIES[action]);
  return { targets, skipped: selected.length - targets.length };
}

/** What the confirmation says before anything happens. */
export function bulkQuestion(action: BulkAction, selected: readonly Selected[]): string {
  const { targets, skipped } = bulkTargets(action, selected);
  const what = `${BULK_LABELS[action].verb} ${targets.length} execution${targets.length === 1 ? '' : 's'}?`;
  const rest =
    skipped > 0
      ? ` ${skipped} selected ${skipped === 1 ? 'is' : 'are'} left as ${skipped === 1 ? 'it is' : 'they are'}: ${action === 'delete' ? 'only ended runs can be deleted (cancel a running or failed one first)' : action === 'retry' ? 'only failed and partial production runs can be retried' : 'only pending, running, waiting and failed runs can be cancelled'}.`
      : '';
  const consequence =
    action === 'delete'
      ? ' Their steps and outputs are deleted too; this cannot be undone.'
      : action === 'retry'
        ? ' Failed runs resume at their failed step; partial runs start a new run of their failed steps.'
        : '';
  return `${what}${consequence}${rest}`;
}

/** Runs the action on each target; answers what happened in one sentence. */
export async function runBulk(action: BulkAction, selected: readonly Selected[]): Promise<string> {
  const { targets } = bulkTargets(action, selected);
  const refused: string[] = [];
  for (const { id } of targets) {
    const params = { params: { path: { id } } };
    try {
      if (action === 'retry') await call(api.POST('/executions/{id}/retry', params));
      else if (action === 'cancel') await call(api.POST('/executions/{id}/cancel', params));
      else await call(api.DELETE('/executions/{id}', params));
    } catch (error) {
      refused.push(error instanceof ApiFailure ? error.envelope.message : (error as Error).message);
    }
  }
  const done = targets.length - refused.length;
  const summary = `${done} execution${done === 1 ? '' : 's'} ${BULK_LABELS[action].done}.`;
  return refused.length === 0
    ? summary
    : `${summary} ${refused.length} refused: ${[...new Set(refused)].join(' ')}`;
}
