/**
 * Ctrl-C (or SIGTERM) during a bench or chaos run: the services were spawned detached (their own
 * process groups, so the terminal's signal does not reach them), so without this they would outlive
 * the command. Registered stops run once, newest first, then the command exits 130 / 143.
 */
const stops: Array<() => Promise<void>> = [];
let installed = false;
let stopping: Promise<void> | undefined;

/**
 * Resolves once an interrupt's stops are done (at once when there was none). The command's own
 * error path awaits it before exiting: the command usually fails as its services go.
 */
export function interruptStopsDone(): Promise<void> {
  return stopping ?? Promise.resolve();
}

/**
 * Registers `stop` for Ctrl-C / SIGTERM and returns the stop to call on the normal path: it
 * unregisters, then stops (so an interrupt afterwards does not stop twice).
 */
export function stopOnInterrupt(stopOnce: () => Promise<void>): () => Promise<void> {
  // Once only: the command's own finally may call it while an interrupt is already stopping.
  let done: Promise<void> | undefined;
  const stop = () => {
    done ??= stopOnce();
    return done;
  };
  stops.push(stop);
  if (!installed) {
    installed = true;
    const handle = (signal: NodeJS.Signals, code: number) => () => {
      stopping ??= stopAll(signal, code);
    };
    const stopAll = async (signal: NodeJS.Signals, code: number) => {
      process.stderr.write(`\n${signal}: stopping the services…\n`);
      // The command's own work is still in flight and fails as its services go (a closed
      // connection, a refused fetch): those errors must not end the process before every stop ran.
      process.on('unhandledRejection', () => {});
      process.on('uncaughtException', () => {});
      // Some stops wait on unref'd children only: keep the process alive until they are done.
      const alive = setInterval(() => {}, 1_000);
      for (const each of [...stops].reverse()) await each().catch(() => {});
      clearInterval(alive);
      process.exit(code);
    };
    process.once('SIGINT', handle('SIGINT', 130));
    process.once('SIGTERM', handle('SIGTERM', 143));
  }
  return async () => {
    const index = stops.indexOf(stop);
    if (index >= 0) stops.splice(index, 1);
    await stop();
  };
}
