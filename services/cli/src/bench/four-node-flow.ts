/**
 * The 4-node flow the engine and soak benches run (transform → condition → one of two transforms),
 * started by POST /events with `event`.
 */
export function fourNodeFlow(name: string, event: string) {
  return {
    name,
    status: 'active',
    trigger_type: 'event',
    trigger_config: { event },
    nodes: [
      {
        id: 'prepare',
        type: 'action.transform',
        config: { assignments: [{ key: 'total', value: '{{trigger.total}}' }] },
      },
      {
        id: 'check',
        type: 'action.condition',
        config: { conditions: [{ left: '{{nodes.prepare.total}}', operator: 'gt', right: '100' }] },
      },
      { id: 'big', type: 'action.transform', config: { assignments: [{ key: 'tier', value: 'big' }] } },
      { id: 'small', type: 'action.transform', config: { assignments: [{ key: 'tier', value: 'small' }] } },
    ],
    edges: [
      { source: 'prepare', target: 'check' },
      { source: 'check', target: 'big', source_handle: 'true' },
      { source: 'check', target: 'small', source_handle: 'false' },
    ],
  };
}
