import { Cron } from 'croner';
import cronstrue from 'cronstrue';

/**
 * A cron expression in plain words and its next fire times in a zone, read the way the server reads
 * it (five fields, day-of-month AND day-of-week, like Temporal's schedules). Null when invalid: the
 * server's 422 then names the problem.
 */
export function describeCron(cron: string, timezone: string, count = 5, after = new Date()) {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5) return null;
  try {
    const job = new Cron(fields.join(' '), { mode: '5-part', domAndDow: true, paused: true, timezone });
    const next = job.nextRuns(count, after);
    const words = cronstrue.toString(fields.join(' '), { use24HourTimeFormat: true, verbose: true });
    return { words, next };
  } catch {
    return null;
  }
}

/** A fire time as the operator reads it in the schedule's own zone. */
export function formatInZone(date: Date, timezone: string) {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    weekday: 'short',
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  }).format(date);
}

/** Whether the browser knows `zone` (a half-typed one would make formatting throw). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat(undefined, { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
