"""Run by services/api/test/client-generators.test.ts with the openapi-python-client venv's
python: create a workflow, run it, read the execution until it ends, find it in the list, with the
client openapi-python-client generated. Prints one JSON line with what it saw.

Arguments: the directory holding the generated package `weft_client`, the API's base URL
(…/api/v1) and an API key (sent once, as Authorization: Bearer, by AuthenticatedClient).
"""

import json
import sys
import time
import uuid

sys.path.insert(0, sys.argv[1])

from weft_client import AuthenticatedClient  # noqa: E402
from weft_client.api.executions import get_execution, list_executions  # noqa: E402
from weft_client.api.workflows import create_workflow, execute_workflow  # noqa: E402
from weft_client.models import CreateWorkflowBodyType1, ExecuteWorkflowBody  # noqa: E402

base_url, api_key = sys.argv[2], sys.argv[3]
client = AuthenticatedClient(base_url=base_url, token=api_key, raise_on_unexpected_status=True)


def expect_status(response, status):
    if response.status_code != status:
        raise SystemExit(f"expected {status}, got {response.status_code}: {response.content!r}")
    return response.parsed


# The manual-trigger branch of the create body (one of six, by trigger_type).
body = CreateWorkflowBodyType1.from_dict(
    {
        "name": "python round trip",
        "trigger_type": "manual",
        "trigger_config": {},
        "nodes": [
            {
                "id": "greet",
                "type": "action.transform",
                "config": {"assignments": [{"key": "msg", "value": "Hi {{trigger.name}}"}]},
            }
        ],
        "edges": [],
    }
)
workflow = expect_status(create_workflow.sync_detailed(client=client, body=body), 201)

run = expect_status(
    execute_workflow.sync_detailed(
        workflow.id, client=client, body=ExecuteWorkflowBody.from_dict({"input": {"name": "Ada"}})
    ),
    202,
)

execution = expect_status(get_execution.sync_detailed(run.execution_id, client=client), 200)
deadline = time.monotonic() + 60
while str(execution.status) in ("pending", "running", "waiting") and time.monotonic() < deadline:
    time.sleep(0.25)
    execution = expect_status(get_execution.sync_detailed(run.execution_id, client=client), 200)

listed = expect_status(list_executions.sync_detailed(client=client, workflow_id=uuid.UUID(workflow.id)), 200)

print(
    json.dumps(
        {
            "workflowId": workflow.id,
            "executionId": run.execution_id,
            "executionWorkflowId": execution.workflow_id,
            "executionStatus": str(execution.status),
            "listedIds": [item.id for item in listed.data],
        }
    )
)
