import { describe, expect, it } from 'vitest';
import { parsePrometheusSamples, temporalServerCost } from './temporal-metrics';

const scrape = (requests: number, latencySeconds: number, syncPolls: number) => `
# HELP persistence_requests Persistence requests
# TYPE persistence_requests counter
persistence_requests{namespace="default",operation="UpdateWorkflowExecution",service_name="history"} ${requests}
persistence_requests{namespace="default",operation="CreateWorkflowExecution",service_name="history"} ${requests / 2}
# TYPE persistence_latency histogram
persistence_latency_bucket{namespace="default",operation="UpdateWorkflowExecution",service_name="history",le="0.001"} 1
persistence_latency_sum{namespace="default",operation="UpdateWorkflowExecution",service_name="history"} ${latencySeconds}
persistence_latency_count{namespace="default",operation="UpdateWorkflowExecution",service_name="history"} ${requests}
persistence_latency_sum{namespace="default",operation="CreateWorkflowExecution",service_name="history"} ${latencySeconds / 4}
persistence_latency_count{namespace="default",operation="CreateWorkflowExecution",service_name="history"} ${requests / 2}
poll_success{operation="PollWorkflowTaskQueue",task_type="Workflow"} 10
poll_success_sync{operation="PollWorkflowTaskQueue",task_type="Workflow"} ${syncPolls}
task_latency_queue_sum{operation="TransferWorkflowTask",task_type="TransferWorkflowTask",label_with_escape="a\\"b,c=d"} 0.5
task_latency_queue_count{operation="TransferWorkflowTask",task_type="TransferWorkflowTask"} 10
state_transition_count_sum{namespace="default",operation="RespondWorkflowTaskCompleted",service_name="history"} ${requests * 2}
state_transition_count_sum{namespace="default",operation="StartWorkflowExecution",service_name="history"} ${requests}
`;

describe('Temporal server metrics', () => {
  it('keeps each labelled series of a histogram apart (the npm parser merged them)', () => {
    const samples = parsePrometheusSamples(scrape(100, 2, 5));
    expect(
      samples.get('persistence_latency_sum|operation=UpdateWorkflowExecution,service_name=history'),
    ).toBe(2);
    expect(
      samples.get('persistence_latency_sum|operation=CreateWorkflowExecution,service_name=history'),
    ).toBe(0.5);
    expect([...samples.keys()].some((k) => k.includes('_bucket'))).toBe(false);
  });

  it('reports per-execution persistence cost, sync-match rate and queue wait from two scrapes', () => {
    const before = parsePrometheusSamples(scrape(100, 2, 5));
    const after = parsePrometheusSamples(scrape(300, 6, 5));
    // 10 executions: 200 more updates, 100 more creates, 4 s + 1 s more persistence time.
    const cost = temporalServerCost(before, after, 10);
    expect(cost.persistenceRequestsPerExecution).toBe(30);
    expect(cost.persistenceMsPerExecution).toBe(500);
    expect(cost.topPersistenceOperations[0]).toEqual({
      operation: 'UpdateWorkflowExecution',
      perExecution: 20,
      meanMs: 20,
    });
    expect(cost.topPersistenceOperations[1]?.meanMs).toBe(10);
    // 400 + 200 more transitions over both operations: 60 per execution.
    expect(cost.stateTransitionsPerExecution).toBe(60);
    // No polls in between: no rate rather than a made-up one.
    expect(cost.syncMatchRate).toBeNull();
    expect(temporalServerCost(parsePrometheusSamples(''), after, 10).syncMatchRate).toBe(0.5);
  });

  it('has no state transition figure when the server does not report one', () => {
    const plain = parsePrometheusSamples('persistence_requests{operation="GetWorkflowExecution"} 4');
    expect(temporalServerCost(plain, plain, 1).stateTransitionsPerExecution).toBeNull();
  });
});
