"""schemathesis hooks for the contract fuzz test (services/api/test/contract-fuzz.test.ts).

Only rules the OpenAPI document cannot state live here. Each gives a schema-valid case the value
the rule asks for; negative cases stay as generated.
"""

import uuid

import schemathesis


def _without_lone_surrogates(value):
    """The server refuses lone UTF-16 surrogates in any string or key (PostgreSQL cannot store
    them); no pattern says so in a way both the Rust and the Python regex engines schemathesis uses
    accept. A lone one becomes U+FFFD; a proper pair stays the character it encodes."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, list):
        return [_without_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {_without_lone_surrogates(k): _without_lone_surrogates(v) for k, v in value.items()}
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
        case.body = _without_lone_surrogates(case.body)
    if case.query:
        case.query = _without_lone_surrogates(case.query)
