/**
 * Ctrl-C (or SIGTERM) during a bench or chaos run: the services were spawned detached (their own
 * process groups, so the terminal's signal does not reach them), so without this they would outlive
 * the command. Registered stops run once, newest first, then the command exits 130 / 143.
 */
const stops: Array<() => Promise<void>> = [];
let installed = false;

export function stopOnInterrupt(stop: () => Promise<void>): () => void {
  stops.push(stop);
  if (!installed) {
    installed = true;
    const handle = (signal: NodeJS.Signals, code: number) => async () => {
      process.stderr.write(`\n${signal}: stopping the services…\n`);
      for (const each of [...stops].reverse()) await each().catch(() => {});
      process.exit(code);
    };
    process.once('SIGINT', handle('SIGINT', 130));
    process.once('SIGTERM', handle('SIGTERM', 143));
  }
  return () => {
    const index = stops.indexOf(stop);
    if (index >= 0) stops.splice(index, 1);
  };
}
