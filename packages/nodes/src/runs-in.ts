/**
 * Where each node type runs: in workflow code (pure, deterministic) or as an activity (side effects).
 * Plain data without zod, so the interpreter can read it inside workflow code; the registry test
 * checks that every definition's `runsIn` agrees with this table and that every activity type has
 * a runner and traits.
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

/** How the interpreter calls a node type that runs in an activity. */
export interface ActivityNodeTraits {
  /**
   * `heartbeat`: runs on the event loop and heartbeats, so a dead worker is noticed in seconds.
   * `blocking`: holds its thread while it runs (the code sandbox), so it cannot heartbeat and gets
   * a short start-to-close timeout instead.
   */
  activity: 'heartbeat' | 'blocking';
  /** What upstream data the runner gets: none, the trigger payload, or every output and the loop item. */
  reads: 'nothing' | 'trigger' | 'upstream';
}

const SENDS: ActivityNodeTraits = { activity: 'heartbeat', reads: 'nothing' };

export const ACTIVITY_NODE_TRAITS: Readonly<Record<string, ActivityNodeTraits>> = {
  'action.http_request': SENDS,
  'action.code': { activity: 'blocking', reads: 'upstream' },
  'action.email.send': SENDS,
  email_send: SENDS,
  'action.chat.send': SENDS,
  'action.chat.send_template': SENDS,
  'action.ai.prompt': SENDS,
  'action.event.publish': { activity: 'heartbeat', reads: 'trigger' },
};

/** Whether a node of this type runs as an activity (unknown types: no). */
export function runsInActivity(type: string): boolean {
  return Object.hasOwn(NODE_RUNS_IN, type) && NODE_RUNS_IN[type] === 'activity';
}
