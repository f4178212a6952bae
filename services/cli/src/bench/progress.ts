/**
 * Progress of a long bench step on stderr (the figures go to stdout): on a terminal one line that
 * updates in place, otherwise a line every tenth, so a CI log shows the bench is moving.
 */
export function progressReporter(label: string, total: number): (done: number) => void {
  const tty = process.stderr.isTTY;
  let lastTenth = -1;
  return (done) => {
    if (tty) {
      process.stderr.write(`\r${label}: ${done}/${total}${done >= total ? '\n' : ''}`);
      return;
    }
    const tenth = Math.floor((done / total) * 10);
    if (tenth !== lastTenth) {
      lastTenth = tenth;
      process.stderr.write(`${label}: ${done}/${total}\n`);
    }
  };
}
