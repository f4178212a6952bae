import { describe, expect, it } from 'vitest';
import { CronExpression, nextCronFireTimes, TimeZone, TriggerConfigByType } from './trigger';

const iso = (dates: Date[]) => dates.map((d) => d.toISOString());

describe('cron fire times (the spec five)', () => {
  // Wednesday 2026-01-14 10:07 UTC.
  const after = new Date('2026-01-14T10:07:00Z');
  it.each([
    ['daily at 08:00', '0 8 * * *', ['2026-01-15T08:00:00.000Z', '2026-01-16T08:00:00.000Z']],
    ['every Monday at 09:00', '0 9 * * 1', ['2026-01-19T09:00:00.000Z', '2026-01-26T09:00:00.000Z']],
    ['every 15 minutes', '*/15 * * * *', ['2026-01-14T10:15:00.000Z', '2026-01-14T10:30:00.000Z']],
    ['first of the month at midnight', '0 0 1 * *', ['2026-02-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z']],
    ['every 2 hours', '0 */2 * * *', ['2026-01-14T12:00:00.000Z', '2026-01-14T14:00:00.000Z']],
  ])('%s (%s) in UTC', (_name, cron, expected) => {
    expect(iso(nextCronFireTimes(cron, 'UTC', after, 2))).toEqual(expected);
  });

  it('daily 08:00 in New York keeps local 08:00 across the spring-forward of 2026-03-08', () => {
    const times = nextCronFireTimes('0 8 * * *', 'America/New_York', new Date('2026-03-06T00:00:00Z'), 3);
    // EST is UTC-5 until 2026-03-08 02:00, EDT (UTC-4) from then on.
    expect(iso(times)).toEqual([
      '2026-03-06T13:00:00.000Z',
      '2026-03-07T13:00:00.000Z',
      '2026-03-08T12:00:00.000Z',
    ]);
  });

  it('every 2 hours in New York skips the 02:00 that does not exist on 2026-03-08', () => {
    const times = nextCronFireTimes('0 */2 * * *', 'America/New_York', new Date('2026-03-08T04:30:00Z'), 3);
    // 00:00 EST (05:00Z); 02:00 does not exist that night; then 04:00 EDT (08:00Z).
    expect(iso(times)).toEqual([
      '2026-03-08T05:00:00.000Z',
      '2026-03-08T08:00:00.000Z',
      '2026-03-08T10:00:00.000Z',
    ]);
  });

  it('Mondays 09:00 in Berlin move by an hour in UTC after the fall-back of 2026-10-25', () => {
    const times = nextCronFireTimes('0 9 * * 1', 'Europe/Berlin', new Date('2026-10-17T00:00:00Z'), 2);
    expect(iso(times)).toEqual(['2026-10-19T07:00:00.000Z', '2026-10-26T08:00:00.000Z']);
  });

  it('ANDs day-of-month and day-of-week, as Temporal does', () => {
    // 2026-06-01 is a Monday; the next 1st that is a Monday is 2027-02-01.
    const times = nextCronFireTimes('0 0 1 * 1', 'UTC', new Date('2026-01-01T00:00:00Z'), 2);
    expect(iso(times)).toEqual(['2026-06-01T00:00:00.000Z', '2027-02-01T00:00:00.000Z']);
  });
});

describe('CronExpression', () => {
  it.each(['0 8 * * *', '*/15 * * * *', '0 9 * * MON-FRI', '5,35 1-5/2 1 JAN,JUL *', ' 0  8 * * * '])(
    'accepts %j',
    (cron) => {
      expect(CronExpression.safeParse(cron).success).toBe(true);
    },
  );
  it('normalizes whitespace', () => {
    expect(CronExpression.parse(' 0  8 * * * ')).toBe('0 8 * * *');
  });
  it.each([
    ['* *', /5 fields/],
    ['0 0 8 * * *', /5 fields/],
    ['61 8 * * *', /minute/],
    ['0 24 * * *', /hour/],
    ['0 8 32 * *', /day/],
    ['0 8 * 13 *', /month/],
    ['0 8 L * *', /day-of-month field/],
    ['0 8 * * 5#2', /day-of-week field/],
    ['0 8 ? * *', /day-of-month field/],
    ['@daily x y z w', /minute field/],
    ['0 8 * * FUNDAY', /day-of-week field/],
  ])('refuses %j', (cron, message) => {
    const result = CronExpression.safeParse(cron);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(message);
  });
});

describe('TimeZone', () => {
  it('canonicalizes IANA names and refuses unknown ones', () => {
    expect(TimeZone.parse('america/new_york')).toBe('America/New_York');
    expect(TimeZone.parse('UTC')).toBe('UTC');
    expect(TimeZone.safeParse('Mars/Olympus_Mons').success).toBe(false);
    // Node 24's Intl takes UTC offsets as zones; a Temporal Schedule does not.
    expect(TimeZone.safeParse('+05:00').success).toBe(false);
    expect(TimeZone.safeParse('-0330').success).toBe(false);
    expect(TimeZone.parse('Etc/GMT+5')).toBe('Etc/GMT+5');
  });
});

describe('trigger_config', () => {
  it('schedule defaults the zone to UTC', () => {
    expect(TriggerConfigByType.schedule.parse({ cron: '0 8 * * *' })).toEqual({
      cron: '0 8 * * *',
      timezone: 'UTC',
    });
  });
  it('polling needs exactly one of interval_minutes and cron, and an http(s) URL', () => {
    const polling = TriggerConfigByType.polling;
    expect(polling.safeParse({ url: 'https://example.com/items', interval_minutes: 5 }).success).toBe(true);
    expect(polling.safeParse({ url: 'https://example.com/items', cron: '*/5 * * * *' }).success).toBe(true);
    expect(polling.safeParse({ url: 'https://example.com/items' }).success).toBe(false);
    expect(polling.safeParse({ url: 'https://x.y', interval_minutes: 5, cron: '* * * * *' }).success).toBe(
      false,
    );
    expect(polling.safeParse({ url: 'file:///etc/passwd', interval_minutes: 5 }).success).toBe(false);
    expect(polling.parse({ url: 'https://example.com/items', interval_minutes: 5 }).baseline).toBe(true);
  });
});
