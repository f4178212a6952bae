"""schemathesis hooks for the contract fuzz test (services/api/test/contract-fuzz.test.ts).

Only rules the OpenAPI document cannot state live here. Each gives a schema-valid case the value
the rule asks for; negative cases stay as generated.
"""

import uuid

import schemathesis
from hypothesis.internal import lambda_sources
from hypothesis.internal.reflection import get_pretty_function_description
from schemathesis.generation.jsonschema import strategy as _jsonschema_strategy

# Python 3.11's ast.parse can raise "SystemError: AST constructor recursion depth mismatch" when it
# runs deep in a stack (CPython gh-106905). Hypothesis parses a module's source the first time it
# describes one of its lambdas, and it describes those of schemathesis's any-JSON strategy (the
# free-form `JsonValue`, `{}`) deep in a draw: a runtime error, flaky by depth. Its cache of parsed
# sources is per thread; made one for all of schemathesis's worker threads, and filled here, at the
# top of the stack, for that module, no parse runs deep any more (pinned versions: setup.sh).
lambda_sources.AST_LAMBDAS_CACHE = {}
get_pretty_function_description(_jsonschema_strategy._TYPE_CHECKS["null"])
assert len(lambda_sources.AST_LAMBDAS_CACHE) == 1


def _storable(value):
    """The server refuses lone UTF-16 surrogates and NUL in any string or key (PostgreSQL cannot
    store them). No pattern says the first in a way both the Rust and the Python regex engines
    schemathesis uses accept; the second is in every named string's pattern, but the free-form
    values (`JsonValue`) only describe it: a schema stating it would be recursive, which client
    generators cannot read (docs/api-clients.md). A lone surrogate or a NUL becomes U+FFFD; a
    proper pair stays the character it encodes."""
    if isinstance(value, str):
        text = value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return text.replace("\x00", "\ufffd")
    if isinstance(value, list):
        return [_storable(item) for item in value]
    if isinstance(value, dict):
        return {_storable(k): _storable(v) for k, v in value.items()}
    return value


@schemathesis.hook
def before_call(context, case, kwargs):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return
    # An Idempotency-Key names one request: reused with another body it is refused with 422 (IETF
    # draft-ietf-httpapi-idempotency-key-header). The generator repeats short values across cases.
    for name in list(case.headers or {}):
        if name.lower() == "idempotency-key":
            case.headers[name] = str(uuid.uuid4())
    # The stateful phase infers links between operations; one from a nullable field (an audit
    # entry's user_id) hands a null on as the text "None", which no `format: uuid` id matches.
    # A null is no id: send an id that names nothing instead (404, like any unknown id).
    for name, value in list((case.path_parameters or {}).items()):
        if value is None or value == "None":
            case.path_parameters[name] = str(uuid.uuid4())
    if isinstance(case.body, (str, list, dict)):
        case.body = _storable(case.body)
    if case.query:
        case.query = _storable(case.query)
