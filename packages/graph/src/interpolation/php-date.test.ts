import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatPhpDate, parseDateInput } from './php-date';

// 2024-02-29T13:05:09.123Z, a Thursday in a leap year: 1,709,164,800 s at 2024-02-29T00:00Z
// (19,782 days after the epoch) + 47,109 s.
const LEAP_DAY = Date.UTC(2024, 1, 29, 13, 5, 9, 123);
const NOW = new Date('2030-01-01T00:00:00Z');

const at = (iso: string): number => new Date(iso).getTime();

describe('formatPhpDate: every letter for one instant in three zones', () => {
  // Expected strings worked out by hand from PHP's date() documentation.
  const table: [letter: string, utc: string, newYork: string, kolkata: string][] = [
    ['d', '29', '29', '29'],
    ['D', 'Thu', 'Thu', 'Thu'],
    ['j', '29', '29', '29'],
    ['l', 'Thursday', 'Thursday', 'Thursday'],
    ['N', '4', '4', '4'],
    ['S', 'th', 'th', 'th'],
    ['w', '4', '4', '4'],
    ['z', '59', '59', '59'],
    ['W', '09', '09', '09'],
    ['F', 'February', 'February', 'February'],
    ['m', '02', '02', '02'],
    ['M', 'Feb', 'Feb', 'Feb'],
    ['n', '2', '2', '2'],
    ['t', '29', '29', '29'],
    ['L', '1', '1', '1'],
    ['o', '2024', '2024', '2024'],
    ['Y', '2024', '2024', '2024'],
    ['y', '24', '24', '24'],
    ['a', 'pm', 'am', 'pm'],
    ['A', 'PM', 'AM', 'PM'],
    ['B', '586', '586', '586'],
    ['g', '1', '8', '6'],
    ['G', '13', '8', '18'],
    ['h', '01', '08', '06'],
    ['H', '13', '08', '18'],
    ['i', '05', '05', '35'],
    ['s', '09', '09', '09'],
    ['u', '123000', '123000', '123000'],
    ['v', '123', '123', '123'],
    ['e', 'UTC', 'America/New_York', 'Asia/Kolkata'],
    ['I', '0', '0', '0'],
    ['T', 'UTC', 'EST', 'GMT+5:30'],
    ['P', '+00:00', '-05:00', '+05:30'],
    ['p', 'Z', '-05:00', '+05:30'],
    ['O', '+0000', '-0500', '+0530'],
    ['Z', '0', '-18000', '19800'],
    ['c', '2024-02-29T13:05:09+00:00', '2024-02-29T08:05:09-05:00', '2024-02-29T18:35:09+05:30'],
    [
      'r',
      'Thu, 29 Feb 2024 13:05:09 +0000',
      'Thu, 29 Feb 2024 08:05:09 -0500',
      'Thu, 29 Feb 2024 18:35:09 +0530',
    ],
    ['U', '1709211909', '1709211909', '1709211909'],
  ];

  it.each(table)('%s', (letter, utc, newYork, kolkata) => {
    expect(formatPhpDate(LEAP_DAY, letter, 'UTC')).toBe(utc);
    expect(formatPhpDate(LEAP_DAY, letter, 'America/New_York')).toBe(newYork);
    expect(formatPhpDate(LEAP_DAY, letter, 'Asia/Kolkata')).toBe(kolkata);
  });

  it('formats a whole pattern, copying characters that are not letters', () => {
    expect(formatPhpDate(LEAP_DAY, 'Y-m-d H:i:s.v', 'UTC')).toBe('2024-02-29 13:05:09.123');
    expect(formatPhpDate(LEAP_DAY, 'D, jS F Y, g:i a', 'America/New_York')).toBe(
      'Thu, 29th February 2024, 8:05 am',
    );
  });

  it('treats a backslash as making the next character literal', () => {
    expect(formatPhpDate(LEAP_DAY, 'l \\t\\h\\e jS', 'UTC')).toBe('Thursday the 29th');
    expect(formatPhpDate(LEAP_DAY, '\\Y\\\\Y', 'UTC')).toBe('Y\\2024');
    expect(formatPhpDate(LEAP_DAY, 'Y\\', 'UTC')).toBe('2024\\');
  });

  it('renders an unknown zone in UTC instead of failing', () => {
    expect(formatPhpDate(LEAP_DAY, 'H:i e', 'Not/AZone')).toBe('13:05 UTC');
  });
});

describe('formatPhpDate: calendar details', () => {
  it.each([
    ['2024-03-01', '1st'],
    ['2024-03-02', '2nd'],
    ['2024-03-03', '3rd'],
    ['2024-03-04', '4th'],
    ['2024-03-10', '10th'],
    ['2024-03-11', '11th'],
    ['2024-03-12', '12th'],
    ['2024-03-13', '13th'],
    ['2024-03-21', '21st'],
    ['2024-03-22', '22nd'],
    ['2024-03-23', '23rd'],
    ['2024-03-24', '24th'],
    ['2024-03-30', '30th'],
    ['2024-03-31', '31st'],
  ])('S: %s is the %s', (day, expected) => {
    expect(formatPhpDate(at(`${day}T12:00:00Z`), 'jS', 'UTC')).toBe(expected);
  });

  it.each([
    // date, ISO week, ISO year, calendar year, ISO weekday
    ['2021-01-03', '53', '2020', '2021', '7'], // Sunday: still in the last week of 2020
    ['2021-01-04', '01', '2021', '2021', '1'],
    ['2020-12-31', '53', '2020', '2020', '4'],
    ['2019-12-30', '01', '2020', '2019', '1'], // Monday of 2020's first week
    ['2024-12-30', '01', '2025', '2024', '1'],
    ['2026-01-01', '01', '2026', '2026', '4'],
    ['2027-01-01', '53', '2026', '2027', '5'], // 2026 starts on a Thursday: 53 weeks
    ['2024-01-01', '01', '2024', '2024', '1'],
  ])('W/o: %s is week %s of %s', (day, week, isoYear, year, weekday) => {
    expect(formatPhpDate(at(`${day}T12:00:00Z`), 'W o Y N', 'UTC')).toBe(
      `${week} ${isoYear} ${year} ${weekday}`,
    );
  });

  it.each([
    ['2023-02-10', '28 0 40'],
    ['2024-02-10', '29 1 40'],
    ['2000-02-01', '29 1 31'], // divisible by 400: leap
    ['1900-02-01', '28 0 31'], // divisible by 100 only: not leap
    ['2024-04-15', '30 1 105'],
    ['2024-12-31', '31 1 365'],
    ['2023-12-31', '31 0 364'],
    ['2023-01-01', '31 0 0'],
  ])('t, L and z for %s', (day, expected) => {
    expect(formatPhpDate(at(`${day}T12:00:00Z`), 't L z', 'UTC')).toBe(expected);
  });

  it('moves the calendar day with the zone', () => {
    // 23:30 UTC on the leap day is already 1 March in Kolkata.
    expect(formatPhpDate(at('2024-02-29T23:30:00Z'), 'D j n S z t H:i', 'Asia/Kolkata')).toBe(
      'Fri 1 3 st 60 31 05:00',
    );
    // 03:00 UTC on 1 March is still the leap day in New York.
    expect(formatPhpDate(at('2024-03-01T03:00:00Z'), 'D j n S z t H:i', 'America/New_York')).toBe(
      'Thu 29 2 th 59 29 22:00',
    );
  });

  it('knows daylight saving time', () => {
    const noon = at('2024-07-04T16:00:00Z');
    expect(formatPhpDate(noon, 'g:i A I T O P Z', 'America/New_York')).toBe(
      '12:00 PM 1 EDT -0400 -04:00 -14400',
    );
    expect(formatPhpDate(at('2024-07-05T04:00:00Z'), 'g a G H h', 'America/New_York')).toBe('12 am 0 00 12');
    // The southern hemisphere: Sydney observes DST in January.
    expect(formatPhpDate(at('2024-01-15T00:00:00Z'), 'I P', 'Australia/Sydney')).toBe('1 +11:00');
    expect(formatPhpDate(at('2024-07-15T00:00:00Z'), 'I P', 'Australia/Sydney')).toBe('0 +10:00');
  });

  it('writes years before 1000, year 0 and years beyond 9999 as PHP 8.2 does', () => {
    expect(formatPhpDate(at('0787-06-01T00:00:00Z'), 'Y y', 'UTC')).toBe('0787 87');
    expect(formatPhpDate(at('0000-06-01T00:00:00Z'), 'Y L', 'UTC')).toBe('0000 1');
    expect(formatPhpDate(at('-000055-06-01T00:00:00Z'), 'Y', 'UTC')).toBe('-0055');
    expect(formatPhpDate(at('+010191-06-01T00:00:00Z'), 'Y', 'UTC')).toBe('10191');
  });

  it('gives U in whole seconds, also before 1970', () => {
    expect(formatPhpDate(0, 'U c', 'UTC')).toBe('0 1970-01-01T00:00:00+00:00');
    expect(formatPhpDate(-1, 'U', 'UTC')).toBe('-1');
  });

  it('returns null for instants outside the range of a Date', () => {
    expect(formatPhpDate(8.64e15 + 1, 'Y', 'UTC')).toBeNull();
    expect(formatPhpDate(Number.NaN, 'Y', 'UTC')).toBeNull();
  });

  it('never throws for any instant, format and zone', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -8.64e15, max: 8.64e15 }),
        fc.string(),
        fc.constantFrom('UTC', 'America/New_York', 'Asia/Kolkata', 'Pacific/Chatham', 'nonsense'),
        (epochMs, format, zone) => {
          expect(typeof formatPhpDate(epochMs, format, zone)).toMatch(/string|object/);
        },
      ),
    );
  });
});

describe('parseDateInput', () => {
  it('accepts epoch milliseconds, Dates and ISO 8601 text with an offset', () => {
    expect(parseDateInput(LEAP_DAY, NOW, 'UTC')).toBe(LEAP_DAY);
    expect(parseDateInput(new Date(LEAP_DAY), NOW, 'UTC')).toBe(LEAP_DAY);
    expect(parseDateInput('2024-02-29T13:05:09.123Z', NOW, 'Asia/Kolkata')).toBe(LEAP_DAY);
    expect(parseDateInput('2024-02-29T18:35:09.123+05:30', NOW, 'UTC')).toBe(LEAP_DAY);
    expect(parseDateInput('2024-02-29 08:05:09.123-0500', NOW, 'UTC')).toBe(LEAP_DAY);
    expect(parseDateInput('2024-02-29T13:05:09.123456789Z', NOW, 'UTC')).toBe(LEAP_DAY);
    expect(parseDateInput('  2024-02-29T13:05:09,123z  ', NOW, 'UTC')).toBe(LEAP_DAY);
  });

  it('reads text without an offset as wall-clock time in the render zone', () => {
    expect(parseDateInput('2024-02-29 13:05:09', NOW, 'UTC')).toBe(at('2024-02-29T13:05:09Z'));
    expect(parseDateInput('2024-02-29T08:05:09', NOW, 'America/New_York')).toBe(at('2024-02-29T13:05:09Z'));
    expect(parseDateInput('2024-02-29', NOW, 'Asia/Kolkata')).toBe(at('2024-02-28T18:30:00Z'));
    expect(parseDateInput('2024-07-04T12:00', NOW, 'America/New_York')).toBe(at('2024-07-04T16:00:00Z'));
  });

  it('resolves wall times in a DST gap or overlap to one of the nearby instants', () => {
    const gap = parseDateInput('2024-03-10T02:30:00', NOW, 'America/New_York');
    expect([at('2024-03-10T06:30:00Z'), at('2024-03-10T07:30:00Z')]).toContain(gap);
    const overlap = parseDateInput('2024-11-03T01:30:00', NOW, 'America/New_York');
    expect([at('2024-11-03T05:30:00Z'), at('2024-11-03T06:30:00Z')]).toContain(overlap);
  });

  it('takes the text "now" as the workflow time, never the machine clock', () => {
    expect(parseDateInput('now', NOW, 'UTC')).toBe(NOW.getTime());
    expect(parseDateInput(' NOW ', NOW, 'UTC')).toBe(NOW.getTime());
  });

  it.each([
    ['yesterday'],
    ['2024-02-30'],
    ['2023-02-29'],
    ['2024-13-01'],
    ['2024-00-10'],
    ['2024-02-29T24:00:00Z'],
    ['2024-02-29T13:60Z'],
    ['2024-02-29T13:05:09+25:00'],
    ['Thu, 29 Feb 2024 13:05:09 GMT'],
    ['1709211909123'],
    [''],
    [null],
    [undefined],
    [true],
    [{}],
    [[2024]],
    [Number.NaN],
    [Number.POSITIVE_INFINITY],
    [1e20],
    [new Date(Number.NaN)],
  ])('rejects %j', (input) => {
    expect(parseDateInput(input, NOW, 'UTC')).toBeUndefined();
  });
});
