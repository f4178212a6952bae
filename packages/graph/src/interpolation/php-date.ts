import { BoundedCache } from './bounded-cache';
import { isDate } from './values';

/**
 * PHP `date()` formatting in any IANA time zone, written against `Intl.DateTimeFormat` because
 * this module runs in Temporal's deterministic workflow sandbox: no Node built-ins, no clock reads.
 * Intl supplies the zone's wall-clock fields and abbreviation; everything else is calendar arithmetic.
 */

const DAY_MS = 86_400_000;
/** The range of a JavaScript Date: ±100,000,000 days around the epoch. */
const MAX_EPOCH_MS = 8.64e15;

const WEEKDAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** An instant as seen on a wall clock in one time zone. */
interface ZonedTime {
  epochMs: number;
  zone: string;
  year: number;
  /** 1-12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
  /** 0 = Sunday … 6 = Saturday */
  weekday: number;
  /** Seconds east of UTC. */
  offsetSeconds: number;
  /** As Intl names it in en-US: `EST`, `UTC`, or `GMT+5:30` where the zone has no common abbreviation. */
  abbreviation: string;
}

interface ZoneFormatter {
  zone: string;
  formatter: Intl.DateTimeFormat;
}

// Building an Intl.DateTimeFormat costs far more than using one; a worker sees few distinct zones.
const formatters = new BoundedCache<string, ZoneFormatter>(64);

/** A formatter for the zone; an unknown zone falls back to UTC rather than failing a render. */
function formatterFor(zone: string): ZoneFormatter {
  const cached = formatters.get(zone);
  if (cached) return cached;
  let entry: ZoneFormatter;
  try {
    entry = { zone, formatter: createFormatter(zone) };
  } catch {
    entry = { zone: 'UTC', formatter: createFormatter('UTC') };
  }
  formatters.set(zone, entry);
  return entry;
}

function createFormatter(timeZone: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    era: 'short',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    timeZoneName: 'short',
  });
}

/** Milliseconds since the epoch of a proleptic Gregorian UTC date-time; years 0-99 are not shifted to 19xx. */
function utcMs(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  return date.getTime();
}

function isValidEpochMs(epochMs: number): boolean {
  return Number.isFinite(epochMs) && Math.abs(epochMs) <= MAX_EPOCH_MS;
}

function zonedTime(epochMs: number, zone: string): ZonedTime | undefined {
  if (!isValidEpochMs(epochMs)) return undefined;
  const { zone: resolvedZone, formatter } = formatterFor(zone);
  const fields: Record<string, string> = {};
  for (const part of formatter.formatToParts(epochMs)) fields[part.type] = part.value;
  const eraYear = Number(fields.year);
  // Intl counts years by era (2 BC, 1 BC, AD 1); PHP and ISO 8601 count 1 BC as year 0.
  const year = fields.era?.startsWith('B') ? 1 - eraYear : eraYear;
  const wallSecondsAsUtc =
    utcMs(
      year,
      Number(fields.month),
      Number(fields.day),
      Number(fields.hour) % 24,
      Number(fields.minute),
      Number(fields.second),
    ) / 1000;
  const offsetSeconds = wallSecondsAsUtc - Math.floor(epochMs / 1000);
  const wall = new Date(epochMs + offsetSeconds * 1000);
  if (!Number.isFinite(offsetSeconds) || Number.isNaN(wall.getTime())) return undefined;
  return {
    epochMs,
    zone: resolvedZone,
    year: wall.getUTCFullYear(),
    month: wall.getUTCMonth() + 1,
    day: wall.getUTCDate(),
    hour: wall.getUTCHours(),
    minute: wall.getUTCMinutes(),
    second: wall.getUTCSeconds(),
    millisecond: wall.getUTCMilliseconds(),
    weekday: wall.getUTCDay(),
    offsetSeconds,
    abbreviation: fields.timeZoneName ?? resolvedZone,
  };
}

function offsetSecondsAt(epochMs: number, zone: string): number {
  return zonedTime(epochMs, zone)?.offsetSeconds ?? 0;
}

/** The instant a wall-clock time names in a zone. In a DST gap or overlap the result is one of the candidates. */
function wallTimeToEpochMs(wallAsUtcMs: number, zone: string): number {
  const firstOffset = offsetSecondsAt(wallAsUtcMs, zone);
  const candidate = wallAsUtcMs - firstOffset * 1000;
  const secondOffset = offsetSecondsAt(candidate, zone);
  return secondOffset === firstOffset ? candidate : wallAsUtcMs - secondOffset * 1000;
}

const ISO_DATE_TIME =
  /^([+-]\d{6}|\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * Parses ISO 8601 text strictly (unlike `Date.parse`, whose treatment of other formats depends on
 * the engine, and whose local-time reading would depend on the worker machine's zone).
 * Text without an offset is a wall-clock time in `zone`; a bare date is midnight there.
 */
function parseIsoText(text: string, zone: string): number | undefined {
  const match = ISO_DATE_TIME.exec(text);
  if (!match) return undefined;
  const [, yearText, monthText, dayText, hourText, minuteText, secondText, fractionText, offsetText] = match;
  const year = Number(yearText);
  const month = Number(monthText);
  const day = Number(dayText);
  const hour = Number(hourText ?? 0);
  const minute = Number(minuteText ?? 0);
  const second = Number(secondText ?? 0);
  const millisecond = Number((fractionText ?? '').slice(0, 3).padEnd(3, '0'));
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const wallAsUtc = utcMs(year, month, day, hour, minute, second, millisecond);
  if (offsetText === undefined) return wallTimeToEpochMs(wallAsUtc, zone);
  if (offsetText.toUpperCase() === 'Z') return wallAsUtc;
  const sign = offsetText.startsWith('-') ? -1 : 1;
  const digits = offsetText.slice(1).replace(':', '');
  const offsetHours = Number(digits.slice(0, 2));
  const offsetMinutes = Number(digits.slice(2) || 0);
  if (offsetHours > 23 || offsetMinutes > 59) return undefined;
  return wallAsUtc - sign * (offsetHours * 3600 + offsetMinutes * 60) * 1000;
}

/**
 * The instant a `date:` pipe input names, in epoch milliseconds, or undefined when it names none.
 * Accepted: a Date; a number (epoch milliseconds); ISO 8601 text (`2024-02-29`,
 * `2024-02-29T13:05:09.123Z`, `2024-02-29 13:05:09+05:30`; no offset = wall time in `zone`);
 * the text `now`, which is the workflow time `now` (never the machine clock).
 *
 * @example parseDateInput('2024-02-29T13:05:09Z', new Date(0), 'UTC') === 1709211909000
 */
export function parseDateInput(input: unknown, now: Date, zone: string): number | undefined {
  let epochMs: number | undefined;
  if (typeof input === 'number') epochMs = input;
  else if (isDate(input)) epochMs = Date.prototype.getTime.call(input);
  else if (typeof input === 'string') {
    const text = input.trim();
    epochMs = text.toLowerCase() === 'now' ? now.getTime() : parseIsoText(text, zone);
  }
  return epochMs !== undefined && isValidEpochMs(epochMs) ? epochMs : undefined;
}

const pad = (value: number, width: number): string => String(Math.abs(value)).padStart(width, '0');

/** PHP's `Y` since 8.2: at least four digits, `-` before years before year 0. */
const formatYear = (year: number): string => `${year < 0 ? '-' : ''}${pad(year, 4)}`;

function formatOffset(offsetSeconds: number, separator: string): string {
  const sign = offsetSeconds < 0 ? '-' : '+';
  const minutes = Math.floor(Math.abs(offsetSeconds) / 60);
  return `${sign}${pad(Math.floor(minutes / 60), 2)}${separator}${pad(minutes % 60, 2)}`;
}

function ordinalSuffix(day: number): string {
  if (day >= 11 && day <= 13) return 'th';
  switch (day % 10) {
    case 1:
      return 'st';
    case 2:
      return 'nd';
    case 3:
      return 'rd';
    default:
      return 'th';
  }
}

/** Zero-based day of the year. */
function dayOfYear(t: ZonedTime): number {
  return Math.round((utcMs(t.year, t.month, t.day) - utcMs(t.year, 1, 1)) / DAY_MS);
}

/** ISO 8601 week: weeks start on Monday and belong to the year that holds their Thursday. */
function isoWeek(t: ZonedTime): { week: number; year: number } {
  const isoWeekday = t.weekday === 0 ? 7 : t.weekday;
  const thursday = new Date(utcMs(t.year, t.month, t.day) + (4 - isoWeekday) * DAY_MS);
  const year = thursday.getUTCFullYear();
  const week = 1 + Math.floor((thursday.getTime() - utcMs(year, 1, 1)) / (7 * DAY_MS));
  return { week, year };
}

/** Whether daylight saving time is in effect: the offset is above the smaller of January's and July's. */
function isDaylightSaving(t: ZonedTime): boolean {
  const january = offsetSecondsAt(utcMs(t.year, 1, 1), t.zone);
  const july = offsetSecondsAt(utcMs(t.year, 7, 1), t.zone);
  return t.offsetSeconds > Math.min(january, july);
}

function hour12(hour: number): number {
  return hour % 12 === 0 ? 12 : hour % 12;
}

/** The text of one PHP format letter, or undefined when the character is not a format letter. */
function formatLetter(letter: string, t: ZonedTime): string | undefined {
  switch (letter) {
    // Day
    case 'd':
      return pad(t.day, 2);
    case 'D':
      return WEEKDAY_NAMES[t.weekday]?.slice(0, 3);
    case 'j':
      return String(t.day);
    case 'l':
      return WEEKDAY_NAMES[t.weekday];
    case 'N':
      return String(t.weekday === 0 ? 7 : t.weekday);
    case 'S':
      return ordinalSuffix(t.day);
    case 'w':
      return String(t.weekday);
    case 'z':
      return String(dayOfYear(t));
    // Week
    case 'W':
      return pad(isoWeek(t).week, 2);
    // Month
    case 'F':
      return MONTH_NAMES[t.month - 1];
    case 'm':
      return pad(t.month, 2);
    case 'M':
      return MONTH_NAMES[t.month - 1]?.slice(0, 3);
    case 'n':
      return String(t.month);
    case 't':
      return String(daysInMonth(t.year, t.month));
    // Year
    case 'L':
      return isLeapYear(t.year) ? '1' : '0';
    case 'o':
      return formatYear(isoWeek(t).year);
    case 'Y':
      return formatYear(t.year);
    case 'y':
      return pad(t.year % 100, 2);
    // Time
    case 'a':
      return t.hour < 12 ? 'am' : 'pm';
    case 'A':
      return t.hour < 12 ? 'AM' : 'PM';
    case 'B': {
      // Swatch Internet time: thousandths of a day in UTC+1, independent of the zone.
      const seconds = (((Math.floor(t.epochMs / 1000) + 3600) % 86_400) + 86_400) % 86_400;
      return pad(Math.floor(seconds / 86.4), 3);
    }
    case 'g':
      return String(hour12(t.hour));
    case 'G':
      return String(t.hour);
    case 'h':
      return pad(hour12(t.hour), 2);
    case 'H':
      return pad(t.hour, 2);
    case 'i':
      return pad(t.minute, 2);
    case 's':
      return pad(t.second, 2);
    case 'u':
      // As PHP's DateTime::format: a Date holds milliseconds, so microseconds end in 000.
      return pad(t.millisecond * 1000, 6);
    case 'v':
      return pad(t.millisecond, 3);
    // Time zone
    case 'e':
      return t.zone;
    case 'I':
      return isDaylightSaving(t) ? '1' : '0';
    case 'O':
      return formatOffset(t.offsetSeconds, '');
    case 'P':
      return formatOffset(t.offsetSeconds, ':');
    case 'p':
      return t.offsetSeconds === 0 ? 'Z' : formatOffset(t.offsetSeconds, ':');
    case 'T':
      return t.abbreviation;
    case 'Z':
      return String(t.offsetSeconds);
    // Full date/time
    case 'c':
      return formatPhpDateParts('Y-m-d\\TH:i:sP', t);
    case 'r':
      return formatPhpDateParts('D, d M Y H:i:s O', t);
    case 'U':
      return String(Math.floor(t.epochMs / 1000));
    default:
      return undefined;
  }
}

function formatPhpDateParts(format: string, t: ZonedTime): string {
  let out = '';
  for (let i = 0; i < format.length; i++) {
    const char = format[i] as string;
    if (char === '\\') {
      // A backslash makes the next character literal; a trailing one stands for itself.
      i++;
      out += format[i] ?? '\\';
      continue;
    }
    out += formatLetter(char, t) ?? char;
  }
  return out;
}

/**
 * Formats an instant with PHP `date()` letters in an IANA time zone. Characters that are not
 * format letters are copied; `\` makes the next character literal. An unknown zone renders in UTC.
 * Returns null when the instant is outside the range of a Date.
 *
 * @example formatPhpDate(Date.UTC(2024, 1, 29, 13, 5, 9), 'D, jS M Y H:i', 'Asia/Kolkata') === 'Thu, 29th Feb 2024 18:35'
 */
export function formatPhpDate(epochMs: number, format: string, zone: string): string | null {
  const t = zonedTime(epochMs, zone);
  return t === undefined ? null : formatPhpDateParts(format, t);
}
