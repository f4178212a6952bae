/**
 * Where each node type runs: in workflow code (pure, deterministic) or as an activity (side effects).
 * Plain data without zod, so the interpreter can read it inside workflow code; the registry test
 * checks that every definition's `runsIn` agrees with this table.
 */
export const NODE_RUNS_IN: Readonly<Record<string, 'workflow' | 'activity'>> = {
  'action.http_request': 'activity',
  'action.transform': 'workflow',
  'action.condition': 'workflow',
  'action.switch': 'workflow',
  'action.loop': 'workflow',
  'action.merge': 'workflow',
  'action.delay': 'workflow',
  'action.wait_for_event': 'workflow',
  'action.code': 'activity',
  'action.email.send': 'activity',
  email_send: 'activity',
  'action.chat.send': 'activity',
  'action.chat.send_template': 'activity',
  'action.ai.prompt': 'activity',
  'action.event.publish': 'activity',
  'action.workflow.execute': 'workflow',
};

/** Whether a node of this type runs as an activity (unknown types: no). */
export function runsInActivity(type: string): boolean {
  return Object.hasOwn(NODE_RUNS_IN, type) && NODE_RUNS_IN[type] === 'activity';
}
