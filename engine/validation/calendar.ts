/**
 * Dates and times as ISO 8601 text, checked for what PostgreSQL's date and timestamptz accept beyond
 * their shape. Date.parse is no judge of that: it takes year 0 (PostgreSQL has none: 1 BC precedes
 * AD 1), rolls 30 February into March, and knows nothing of PostgreSQL's UTC offsets (at most 15:59).
 * A value that passes here reaches SQL without a database error.
 */

/** YYYY-MM-DD. */
export const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
/** A date, optionally a time (minutes, seconds, up to six decimals) and a UTC offset, as Python's fromisoformat reads them. */
export const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?)?(Z|[+-]\d{2}(:?\d{2})?)?$/;

const PARTS = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?(?:[Zz]|[+-](\d{2})(?::?(\d{2}))?)?$/;

/** Days in a month of the proleptic Gregorian calendar, as PostgreSQL counts them. */
function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

/** Whether ISO 8601 date or date-time text names a real moment PostgreSQL can hold; false for text of another shape. */
export function withinCalendar(text: string): boolean {
  const m = PARTS.exec(text);
  if (!m) return false;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = m.slice(1).map((part) => Number(part ?? 0)) as [number, number, number, number, number, number, number, number];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return false;
  // 60 seconds is a leap second, which PostgreSQL takes (as the next minute).
  if (hour > 23 || minute > 59 || second > 60) return false;
  return offsetHours <= 15 && offsetMinutes <= 59;
}
