/**
 * Run by services/api/test/client-generators.test.ts from a temporary directory, beside the
 * client @hey-api/openapi-ts generated there (`./weft-client`): create a workflow, run it, read the
 * execution until it ends, find it in the list. Prints one JSON line with what it saw.
 * Arguments: the API's base URL (…/api/v1) and an API key.
 */
import { createWorkflow, executeWorkflow, getExecution, listExecutions } from './weft-client';
import { client } from './weft-client/client.gen';

// No @types/node where this runs: the little of `process` it needs.
declare const process: { argv: string[] };
const [baseUrl, apiKey] = process.argv.slice(2);

// The ordinary way: the key as a plain string. The document offers one scheme (Bearer), so hey-api
// sends it once, as Authorization: Bearer.
client.setConfig({ baseUrl, auth: apiKey });

const created = await createWorkflow({
  body: {
    name: 'hey-api round trip',
    trigger_type: 'manual',
    trigger_config: {},
    nodes: [
      {
        id: 'greet',
        type: 'action.transform',
        config: { assignments: [{ key: 'msg', value: 'Hi {{trigger.name}}' }] },
      },
    ],
    edges: [],
  },
  throwOnError: true,
});
const workflowId = created.data.id;

const run = await executeWorkflow({
  path: { id: workflowId },
  body: { input: { name: 'Ada' } },
  throwOnError: true,
});
const executionId = run.data.execution_id;

let execution = (await getExecution({ path: { id: executionId }, throwOnError: true })).data;
const deadline = Date.now() + 60_000;
while (['pending', 'running', 'waiting'].includes(execution.status) && Date.now() < deadline) {
  await new Promise((resolve) => setTimeout(resolve, 250));
  execution = (await getExecution({ path: { id: executionId }, throwOnError: true })).data;
}

const listed = await listExecutions({ query: { workflow_id: workflowId }, throwOnError: true });

console.log(
  JSON.stringify({
    createdStatus: created.response.status,
    workflowId,
    executeStatus: run.response.status,
    executionId,
    executionWorkflowId: execution.workflow_id,
    executionStatus: execution.status,
    listedIds: listed.data.data.map((item) => item.id),
  }),
);
