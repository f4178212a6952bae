import { type NodeRunContext, NodeRunError } from '../src/runner';

const notExpected = (what: string) => async () => {
  throw new Error(`${what} was not expected in this test`);
};

/** A runner context for unit tests: every dependency fails loudly unless the test provides it. */
export function runContext(overrides: Partial<NodeRunContext> = {}): NodeRunContext {
  return {
    organizationId: 'org',
    executionId: 'exec',
    nodeId: 'n',
    stepKey: 'exec:n',
    input: {},
    http: { request: notExpected('an HTTP request') },
    openCredential: notExpected('a credential'),
    openModule: notExpected('a module'),
    outbox: {
      claim: notExpected('the outbox'),
      complete: notExpected('the outbox'),
      release: notExpected('the outbox'),
    },
    sendMail: notExpected('an e-mail'),
    chatWindow: notExpected('the chat window'),
    chatTemplate: notExpected('a chat template'),
    sendChat: notExpected('a chat message'),
    publishEvent: notExpected('publishing an event'),
    ...overrides,
  };
}

/** The NodeRunError a run fails with (the test fails if it succeeds or fails otherwise). */
export async function nodeRunFailure(work: Promise<unknown>): Promise<NodeRunError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof NodeRunError)) throw new Error(`expected a NodeRunError, got ${String(error)}`);
  return error;
}
