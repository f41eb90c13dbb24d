import { sql, type Sql, type SqlValue } from './fragment';

/**
 * The type a bound value is cast to so it compares with a column of that type (and the column's index
 * serves): a filter's or a constraint's value against an integer, date, address... column.
 */
export type Cast = 'bigint' | 'numeric' | 'date' | 'timestamptz' | 'macaddr' | 'cidr' | 'inet' | null;

const CASTS: Record<Exclude<Cast, null>, Sql> = {
  bigint: sql`::bigint`,
  numeric: sql`::numeric`,
  date: sql`::date`,
  timestamptz: sql`::timestamptz`,
  macaddr: sql`::macaddr`,
  cidr: sql`::cidr`,
  inet: sql`::inet`,
};
const ARRAY_CASTS: Record<Exclude<Cast, null>, Sql> = {
  bigint: sql`::bigint[]`,
  numeric: sql`::numeric[]`,
  date: sql`::date[]`,
  timestamptz: sql`::timestamptz[]`,
  macaddr: sql`::macaddr[]`,
  cidr: sql`::cidr[]`,
  inet: sql`::inet[]`,
};

/** `value::cast`, the value bound. */
export function castValue(value: unknown, cast: Cast): Sql {
  const v = value as SqlValue;
  return cast ? sql`${v}${CASTS[cast]}` : sql`${v}`;
}

/** `values::cast[]`, the list bound as one array parameter. */
export function castArray(values: readonly unknown[], cast: Cast): Sql {
  return cast ? sql`${values}${ARRAY_CASTS[cast]}` : sql`${values}`;
}
