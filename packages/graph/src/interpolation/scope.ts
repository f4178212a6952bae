/** What expressions can read while a node's config is rendered. */
export interface ExpressionScope {
  /** The execution's trigger payload (the `input` of an execute call). */
  trigger: unknown;
  /** Outputs of the nodes that already ran, by node id. */
  nodes: Record<string, unknown>;
  /** Present only inside the `each` branch of an `action.loop`. */
  loop?: { item: unknown; index: number; count: number };
  execution: { id: string; workflow_id: string; started_at: string };
  /**
   * `{{credentials.<name>.<field>}}`: the organization's credentials by name. Only the activity that
   * sends the request fills this in; in workflow code it is absent, so no secret enters Temporal.
   */
  credentials?: Record<string, Record<string, string>>;
}

/**
 * Inputs that make rendering deterministic inside workflow code: the workflow's notion of "now"
 * (never the machine clock) and the IANA zone the `date:` pipe renders in.
 */
export interface RenderOptions {
  now: Date;
  timezone: string;
}

/** The roots an expression may start with; there is deliberately no `env` or `process`. */
export const EXPRESSION_ROOTS = ['trigger', 'nodes', 'loop', 'execution', 'credentials'] as const;
export type ExpressionRoot = (typeof EXPRESSION_ROOTS)[number];

/** The fields of `{{loop.…}}`; anything else is a save-time error. */
export const LOOP_FIELDS = ['item', 'index', 'count'] as const;

/** The fields of `{{execution.…}}`; anything else is a save-time error. */
export const EXECUTION_FIELDS = ['id', 'workflow_id', 'started_at'] as const;

/** Whether a config holds a `{{credentials.…}}` expression (then it is rendered in the activity). */
export function referencesCredentials(config: unknown): boolean {
  return /\{\{\s*credentials\./.test(JSON.stringify(config) ?? '');
}
